/** Above the Files tab's editor: the open file's path, unsaved mark and language, with Rename, Delete and Save. */
import { Button, Space, Tooltip, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { FileEntry } from '../../types.ts';
import { languageOf, type Dialog, type Doc } from './fileModel.ts';

interface EditorHeaderProps {
  openPath: string | null;
  openEntry: FileEntry | undefined;
  doc: Doc | null;
  dirty: boolean;
  saving: boolean;
  save: () => Promise<void>;
  setDialog: (dialog: Dialog) => void;
  confirmDelete: (entry: Pick<FileEntry, 'path' | 'is_dir'>) => void;
}

export default function EditorHeader(props: EditorHeaderProps) {
  const { openPath, openEntry, doc, dirty, saving, save, setDialog, confirmDelete } = props;
  const { t } = useTranslation(['spiders', 'common']);
  return (
    <div className="files-editor-header">
      <div className="files-editor-path">
        {openPath ? (
          <>
            <Typography.Text strong className="mono-text" data-testid="open-path">
              {openPath}
            </Typography.Text>
            {dirty && (
              <span className="files-unsaved" data-testid="unsaved-indicator">
                ● {t('spiders:files.unsaved')}
              </span>
            )}
            {doc?.kind === 'text' && languageOf(openPath) && <span className="files-lang">{languageOf(openPath)}</span>}
          </>
        ) : (
          <Typography.Text type="secondary">{t('spiders:files.noFile')}</Typography.Text>
        )}
      </div>
      {openPath && (
        <Space size={6}>
          <Button
            size="small"
            icon={<EditOutlined />}
            onClick={() =>
              setDialog({ kind: 'rename', entry: openEntry ?? { path: openPath, is_dir: false, name: openPath } })
            }
            data-testid="file-rename"
          >
            {t('spiders:files.rename')}
          </Button>
          <Button
            size="small"
            danger
            icon={<DeleteOutlined />}
            onClick={() => confirmDelete({ path: openPath, is_dir: false })}
            data-testid="file-delete"
          >
            {t('spiders:files.delete')}
          </Button>
          <Tooltip title={t('spiders:files.saveHint')}>
            <Button
              size="small"
              type="primary"
              icon={<SaveOutlined />}
              disabled={doc?.kind !== 'text'}
              loading={saving}
              onClick={() => void save()}
              data-testid="file-save"
            >
              {t('common:save')}
            </Button>
          </Tooltip>
        </Space>
      )}
    </div>
  );
}

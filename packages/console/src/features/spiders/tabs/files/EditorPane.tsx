/** The Files tab's editor area: nothing open, loading, a binary file offered for download, an error, or the editor. */
import { lazy, Suspense, type Dispatch, type SetStateAction } from 'react';
import { Button, Empty, Result, Spin } from 'antd';
import { DownloadOutlined, FileOutlined, FileUnknownOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { downloadFile } from '../../api.ts';
import type { Doc } from './fileModel.ts';

const CodeEditor = lazy(() => import('../../components/CodeEditor.tsx'));

interface EditorPaneProps {
  id: string;
  openPath: string | null;
  doc: Doc | null;
  setDoc: Dispatch<SetStateAction<Doc | null>>;
  save: () => Promise<void>;
}

export default function EditorPane({ id, openPath, doc, setDoc, save }: EditorPaneProps) {
  const { t } = useTranslation(['spiders', 'common']);
  if (!openPath) {
    return (
      <div className="files-editor-empty">
        <Empty image={<FileOutlined className="files-empty-icon" />} description={t('spiders:files.pick')} />
      </div>
    );
  }
  if (!doc || doc.path !== openPath) {
    return <Spin className="files-editor-loading" />;
  }
  if (doc.kind === 'binary') {
    return (
      <div data-testid="binary-file">
        <Result
          icon={<FileUnknownOutlined />}
          title={t('spiders:files.binary')}
          subTitle={t('spiders:files.binaryText')}
          extra={
            <Button
              type="link"
              icon={<DownloadOutlined />}
              onClick={() => void downloadFile(id, doc.path).catch(() => undefined)}
              data-testid="file-download"
            >
              {t('spiders:files.download')}
            </Button>
          }
        />
      </div>
    );
  }
  if (doc.kind === 'error') {
    return (
      <Result
        status="warning"
        title={t('spiders:files.openFailed')}
        subTitle={doc.message}
        extra={
          <Button icon={<DownloadOutlined />} onClick={() => void downloadFile(id, doc.path).catch(() => undefined)}>
            {t('spiders:files.download')}
          </Button>
        }
      />
    );
  }
  return (
    <Suspense fallback={<Spin className="files-editor-loading" />}>
      <CodeEditor
        filename={doc.path}
        value={doc.draft}
        onChange={(v) => setDoc((d) => (d && d.path === doc.path ? { ...d, draft: v } : d))}
        onSave={() => void save()}
      />
    </Suspense>
  );
}

/** The Files tab's folder tree with its toolbar (new file, new folder, upload a zip, refresh) and entry menus. */
import type { Key, ReactNode } from 'react';
import { Alert, Button, Dropdown, Empty, Spin, Tooltip, Tree } from 'antd';
import type { TreeDataNode } from 'antd';
import {
  CloudUploadOutlined,
  DeleteOutlined,
  DownloadOutlined,
  EditOutlined,
  FileAddOutlined,
  FolderAddOutlined,
  MoreOutlined,
  ReloadOutlined,
} from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { dirQuery, downloadFile } from '../../api.ts';
import type { FileEntry } from '../../types.ts';
import type { Dialog } from './fileModel.ts';
import type { useFileTree } from './useFileTree.ts';

interface FileTreeSidebarProps {
  id: string;
  tree: ReturnType<typeof useFileTree>;
  expanded: string[];
  setExpanded: (keys: string[]) => void;
  selected: string | null;
  setSelected: (path: string) => void;
  /** The path of the file with unsaved edits, if any (marked in the tree). */
  dirtyPath: string | null;
  /** The folder new entries go into. */
  targetDir: string;
  setDialog: (dialog: Dialog) => void;
  confirmDelete: (entry: FileEntry) => void;
  openFile: (path: string) => void;
  refresh: () => Promise<unknown>;
}

export default function FileTreeSidebar(props: FileTreeSidebarProps) {
  const { id, tree, expanded, setExpanded, selected, setSelected, dirtyPath, targetDir } = props;
  const { setDialog, confirmDelete, openFile } = props;
  const { dirs, entries, rootQuery, treeData } = tree;
  const { t } = useTranslation(['spiders', 'common']);
  const qc = useQueryClient();

  const entryMenu = (e: FileEntry) => ({
    items: [
      ...(e.is_dir
        ? [
            { key: 'newFile', icon: <FileAddOutlined />, label: t('spiders:files.newFile') },
            { key: 'newDir', icon: <FolderAddOutlined />, label: t('spiders:files.newDir') },
            { type: 'divider' as const },
          ]
        : [{ key: 'download', icon: <DownloadOutlined />, label: t('spiders:files.download') }]),
      { key: 'rename', icon: <EditOutlined />, label: t('spiders:files.rename') },
      { key: 'delete', icon: <DeleteOutlined />, label: t('spiders:files.delete'), danger: true },
    ],
    onClick: ({ key, domEvent }: { key: string; domEvent: { stopPropagation: () => void } }) => {
      domEvent.stopPropagation();
      if (key === 'newFile' || key === 'newDir') setDialog({ kind: key, dir: e.path });
      else if (key === 'rename') setDialog({ kind: 'rename', entry: e });
      else if (key === 'delete') confirmDelete(e);
      else if (key === 'download') void downloadFile(id, e.path).catch(() => undefined);
    },
  });

  const titleRender = (node: TreeDataNode): ReactNode => {
    const e = entries.get(String(node.key));
    if (!e) return String(node.title);
    const isDirty = dirtyPath === e.path;
    return (
      <span className="file-node" data-testid="file-node" data-path={e.path}>
        <span className="file-node-name">
          {e.name}
          {isDirty && <span className="file-dirty-dot"> ●</span>}
        </span>
        <Dropdown trigger={['click']} menu={entryMenu(e)}>
          <Button
            type="text"
            size="small"
            className="file-node-more"
            icon={<MoreOutlined />}
            onClick={(ev) => ev.stopPropagation()}
            aria-label={t('spiders:files.actions')}
            data-testid="file-node-more"
          />
        </Dropdown>
      </span>
    );
  };

  return (
    <div className="files-sidebar">
      <div className="files-toolbar">
        <Tooltip title={t('spiders:files.newFileIn', { dir: targetDir || '/' })}>
          <Button
            size="small"
            icon={<FileAddOutlined />}
            onClick={() => setDialog({ kind: 'newFile', dir: targetDir })}
            data-testid="files-new-file"
          />
        </Tooltip>
        <Tooltip title={t('spiders:files.newDirIn', { dir: targetDir || '/' })}>
          <Button
            size="small"
            icon={<FolderAddOutlined />}
            onClick={() => setDialog({ kind: 'newDir', dir: targetDir })}
            data-testid="files-new-dir"
          />
        </Tooltip>
        <Tooltip title={t('spiders:files.uploadZip')}>
          <Button
            size="small"
            icon={<CloudUploadOutlined />}
            onClick={() => setDialog({ kind: 'upload' })}
            data-testid="files-upload"
          />
        </Tooltip>
        <Tooltip title={t('spiders:refresh')}>
          <Button
            size="small"
            icon={<ReloadOutlined />}
            onClick={() => void props.refresh()}
            loading={dirs.some((d) => d.isFetching)}
          />
        </Tooltip>
      </div>
      <div className="files-tree" data-testid="files-tree">
        {rootQuery?.isLoading ? (
          <Spin className="files-tree-loading" />
        ) : rootQuery?.error ? (
          <Alert type="error" showIcon message={t('common:fetchError')} />
        ) : treeData.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('spiders:files.empty')}>
            <Button size="small" icon={<CloudUploadOutlined />} onClick={() => setDialog({ kind: 'upload' })}>
              {t('spiders:files.uploadZip')}
            </Button>
          </Empty>
        ) : (
          <Tree.DirectoryTree
            treeData={treeData}
            expandedKeys={expanded}
            selectedKeys={selected ? [selected] : []}
            expandAction="click"
            blockNode
            titleRender={titleRender}
            loadData={async (node) => {
              const path = String(node.key);
              await qc.ensureQueryData(dirQuery(id, path));
            }}
            onExpand={(keys: Key[]) => setExpanded(keys.map(String))}
            onSelect={(keys: Key[]) => {
              const key = keys[0] === undefined ? null : String(keys[0]);
              if (!key) return;
              const e = entries.get(key);
              if (e && !e.is_dir) openFile(key);
              else setSelected(key);
            }}
          />
        )}
      </div>
    </div>
  );
}

/**
 * Spider detail, Files tab: directory tree (directories first, names descending, spec §9) and a CodeMirror editor.
 * Create file/folder, rename, delete, replace all files from a zip, save with Ctrl/Cmd+S or the Save button,
 * unsaved-change guard (switching file, leaving the page, closing the window), binary files offered for download.
 */
import {
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type Key,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { Alert, App, Button, Dropdown, Empty, Modal, Result, Space, Spin, Tooltip, Tree, Typography } from 'antd';
import type { TreeDataNode } from 'antd';
import {
  CloudUploadOutlined,
  DeleteOutlined,
  DownloadOutlined,
  EditOutlined,
  FileAddOutlined,
  FileOutlined,
  FileUnknownOutlined,
  FolderAddOutlined,
  MoreOutlined,
  ReloadOutlined,
  SaveOutlined,
} from '@ant-design/icons';
import { useBlocker, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { ApiRequestError } from '../../../api/request.ts';
import { dirQuery, downloadFile, spiderKeys, useDirs, useFileContent, useFileMutations } from '../api.ts';
import type { FileEntry } from '../types.ts';
import PathModal from '../components/PathModal.tsx';
import ZipDragger from '../components/ZipDragger.tsx';
import type { SpiderTabProps } from './types.ts';

const CodeEditor = lazy(() => import('../components/CodeEditor.tsx'));

interface Doc {
  path: string;
  kind: 'text' | 'binary' | 'error';
  original: string;
  draft: string;
  message?: string;
}

type Dialog =
  | { kind: 'newFile' | 'newDir'; dir: string }
  | { kind: 'rename'; entry: Pick<FileEntry, 'path' | 'is_dir' | 'name'> }
  | { kind: 'upload' }
  | null;

const dirname = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);
const within = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);

const LANGUAGE_LABELS: Record<string, string> = {
  py: 'Python',
  js: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  jsx: 'JavaScript (JSX)',
  ts: 'TypeScript',
  tsx: 'TypeScript (TSX)',
  json: 'JSON',
  yaml: 'YAML',
  yml: 'YAML',
  md: 'Markdown',
  html: 'HTML',
  htm: 'HTML',
  css: 'CSS',
};
const languageOf = (p: string) => LANGUAGE_LABELS[p.split('.').pop()?.toLowerCase() ?? ''] ?? '';

/** Registered only while there are unsaved changes (a router supports one blocker at a time). */
function UnsavedBlocker({ onBlocked }: { onBlocked: (proceed: () => void, reset: () => void) => void }) {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (blocker.state === 'blocked')
      onBlocked(
        () => blocker.proceed(),
        () => blocker.reset(),
      );
  }, [blocker, onBlocked]);
  useEffect(() => {
    const handler = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', handler);
    return () => window.removeEventListener('beforeunload', handler);
  }, []);
  return null;
}

export default function FilesTab({ spider, active }: SpiderTabProps) {
  const id = spider._id;
  const { t } = useTranslation(['spiders', 'common']);
  const { modal, message } = App.useApp();
  const qc = useQueryClient();
  const files = useFileMutations(id);
  const [expanded, setExpanded] = useState<string[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [openPath, setOpenPath] = useState<string | null>(null);
  const [doc, setDoc] = useState<Doc | null>(null);
  const [saving, setSaving] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [zip, setZip] = useState<File | null>(null);
  const [zipProgress, setZipProgress] = useState<number | null>(null);

  const dirPaths = useMemo(() => ['', ...expanded], [expanded]);
  const dirs = useDirs(id, dirPaths);
  const listing = useMemo(() => {
    const m = new Map<string, FileEntry[]>();
    dirPaths.forEach((p, i) => {
      const d = dirs[i]?.data;
      if (d) m.set(p, d);
    });
    return m;
  }, [dirPaths, dirs]);
  const entries = useMemo(() => {
    const m = new Map<string, FileEntry>();
    for (const list of listing.values()) for (const e of list) m.set(e.path, e);
    return m;
  }, [listing]);
  const rootQuery = dirs[0];

  const content = useFileContent(id, openPath);
  useEffect(() => {
    if (!openPath) return;
    if (content.data && doc?.path !== openPath) {
      const d = content.data;
      setDoc(
        d.kind === 'text'
          ? { path: openPath, kind: 'text', original: d.content, draft: d.content }
          : { path: openPath, kind: 'binary', original: '', draft: '', message: d.message },
      );
    } else if (content.error && doc?.path !== openPath) {
      const err = content.error;
      setDoc({
        path: openPath,
        kind: 'error',
        original: '',
        draft: '',
        message: err instanceof ApiRequestError ? err.errorText : String(err),
      });
    }
  }, [openPath, content.data, content.error, doc?.path]);

  const dirty = !!doc && doc.kind === 'text' && doc.draft !== doc.original;
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  /** Runs `action` at once, or after the user agrees to drop unsaved changes. */
  const guard = useCallback(
    (action: () => void) => {
      if (!dirtyRef.current) return action();
      modal.confirm({
        title: t('spiders:files.unsavedTitle'),
        content: t('spiders:files.unsavedText'),
        okText: t('spiders:files.discard'),
        okButtonProps: { danger: true },
        cancelText: t('common:cancel'),
        onOk: action,
      });
    },
    [modal, t],
  );

  const onBlocked = useCallback(
    (proceed: () => void, reset: () => void) => {
      modal.confirm({
        title: t('spiders:files.unsavedTitle'),
        content: t('spiders:files.unsavedLeave'),
        okText: t('spiders:files.discard'),
        okButtonProps: { danger: true },
        cancelText: t('common:cancel'),
        onOk: proceed,
        onCancel: reset,
      });
    },
    [modal, t],
  );

  const openFile = (path: string) => {
    if (path === openPath) return;
    guard(() => {
      setDoc(null);
      setOpenPath(path);
      setSelected(path);
    });
  };

  // `?file=<path>` (e.g. the Scrapy panel's "Open file"): open it with its folders expanded, then drop the param.
  const location = useLocation();
  const navigate = useNavigate();
  const fileParam = active ? new URLSearchParams(location.search).get('file') : null;
  useEffect(() => {
    if (!fileParam) return;
    const parents = fileParam
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    setExpanded((xs) => [...xs, ...parents.filter((p) => !xs.includes(p))]);
    openFile(fileParam);
    const params = new URLSearchParams(location.search);
    params.delete('file');
    navigate({ pathname: location.pathname, search: `?${params.toString()}` }, { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fileParam]);

  const docRef = useRef(doc);
  docRef.current = doc;
  const savingRef = useRef(false);
  const save = useCallback(async () => {
    const d = docRef.current;
    if (!d || d.kind !== 'text' || savingRef.current) return;
    savingRef.current = true;
    setSaving(true);
    try {
      await files.save(d.path, d.draft);
      setDoc((cur) => (cur && cur.path === d.path ? { ...cur, original: d.draft } : cur));
      void message.success(t('spiders:files.saved', { path: d.path }));
      void qc.invalidateQueries({ queryKey: [...spiderKeys.files(id), 'dir'] });
    } catch {
      // the request helper already showed the error toast
    } finally {
      savingRef.current = false;
      setSaving(false);
    }
  }, [files, id, message, qc, t]);
  /** Folder new entries go into: the selected folder, or the folder of the selected file, or the root. */
  const targetDir = (() => {
    if (!selected) return '';
    const e = entries.get(selected);
    return e?.is_dir ? e.path : dirname(selected);
  })();

  const closeDocIf = (pred: (p: string) => boolean) => {
    if (openPath && pred(openPath)) {
      setOpenPath(null);
      setDoc(null);
    }
    if (selected && pred(selected)) setSelected(null);
  };

  const confirmDelete = (entry: Pick<FileEntry, 'path' | 'is_dir'>) => {
    modal.confirm({
      title: entry.is_dir ? t('spiders:files.deleteDirTitle') : t('spiders:files.deleteFileTitle'),
      content: entry.is_dir
        ? t('spiders:files.deleteDirText', { path: entry.path })
        : t('spiders:files.deleteFileText', { path: entry.path }),
      okText: t('common:confirm'),
      okButtonProps: { danger: true, 'data-testid': 'confirm-delete-file' },
      cancelText: t('common:cancel'),
      onOk: async () => {
        await files.remove(entry.path);
        closeDocIf((p) => within(p, entry.path));
        setExpanded((xs) => xs.filter((x) => !within(x, entry.path)));
        void message.success(t('spiders:files.deleted', { path: entry.path }));
      },
    });
  };

  const submitDialog = async (value: string) => {
    if (!dialog) return;
    if (dialog.kind === 'newFile' || dialog.kind === 'newDir') {
      const path = join(dialog.dir, value);
      if (dialog.kind === 'newFile') {
        await files.createFile(path);
        if (dialog.dir) setExpanded((xs) => (xs.includes(dialog.dir) ? xs : [...xs, dialog.dir]));
        setDialog(null);
        void message.success(t('spiders:files.created', { path }));
        openFile(path);
      } else {
        await files.createDir(path);
        setExpanded((xs) => [
          ...xs.filter((x) => x !== path),
          ...(dialog.dir && !xs.includes(dialog.dir) ? [dialog.dir] : []),
          path,
        ]);
        setSelected(path);
        setDialog(null);
        void message.success(t('spiders:files.created', { path }));
      }
    } else if (dialog.kind === 'rename') {
      const from = dialog.entry.path;
      const to = value;
      if (to === from) return setDialog(null);
      await files.rename(from, to);
      const move = (p: string) => (within(p, from) ? to + p.slice(from.length) : p);
      if (openPath && within(openPath, from)) {
        const next = move(openPath);
        setDoc((d) => (d ? { ...d, path: next } : d));
        setOpenPath(next);
      }
      if (selected) setSelected(move(selected));
      setExpanded((xs) => {
        const moved = xs.map(move);
        const parent = dirname(to);
        return parent && !moved.includes(parent) ? [...moved, parent] : moved;
      });
      setDialog(null);
      void message.success(t('spiders:files.renamed', { from, to }));
    }
  };

  const doUpload = async () => {
    if (!zip) return;
    setZipProgress(0);
    try {
      const res = await files.uploadZip(zip, setZipProgress);
      setDialog(null);
      setZip(null);
      setOpenPath(null);
      setDoc(null);
      setSelected(null);
      setExpanded([]);
      void message.success(t('spiders:files.uploaded', { count: res?.files ?? 0 }));
    } catch {
      // toast shown by the upload helper
    } finally {
      setZipProgress(null);
    }
  };

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

  const treeData = useMemo(() => {
    const build = (dir: string): TreeDataNode[] =>
      (listing.get(dir) ?? []).map((e) => ({
        key: e.path,
        title: e.name,
        isLeaf: !e.is_dir,
        children: e.is_dir && listing.has(e.path) ? build(e.path) : undefined,
      }));
    return build('');
  }, [listing]);

  const titleRender = (node: TreeDataNode): ReactNode => {
    const e = entries.get(String(node.key));
    if (!e) return String(node.title);
    const isDirty = dirty && doc?.path === e.path;
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

  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void save();
    }
  };

  const openEntry = openPath ? entries.get(openPath) : undefined;

  let editorPane: ReactNode;
  if (!openPath) {
    editorPane = (
      <div className="files-editor-empty">
        <Empty image={<FileOutlined className="files-empty-icon" />} description={t('spiders:files.pick')} />
      </div>
    );
  } else if (!doc || doc.path !== openPath) {
    editorPane = <Spin className="files-editor-loading" />;
  } else if (doc.kind === 'binary') {
    editorPane = (
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
  } else if (doc.kind === 'error') {
    editorPane = (
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
  } else {
    editorPane = (
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

  return (
    <div className="files-tab" onKeyDown={onKeyDown} data-testid="files-tab">
      {dirty && <UnsavedBlocker onBlocked={onBlocked} />}
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
              onClick={() => void files.refresh()}
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
      <div className="files-main">
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
                {doc?.kind === 'text' && languageOf(openPath) && (
                  <span className="files-lang">{languageOf(openPath)}</span>
                )}
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
        <div className="files-editor">{editorPane}</div>
      </div>

      <PathModal
        open={dialog?.kind === 'newFile' || dialog?.kind === 'newDir'}
        title={dialog?.kind === 'newDir' ? t('spiders:files.newDir') : t('spiders:files.newFile')}
        label={dialog?.kind === 'newDir' ? t('spiders:files.dirName') : t('spiders:files.fileName')}
        hint={dialog && 'dir' in dialog ? t('spiders:files.inFolder', { dir: dialog.dir || '/' }) : undefined}
        onCancel={() => setDialog(null)}
        onSubmit={submitDialog}
      />
      <PathModal
        open={dialog?.kind === 'rename'}
        title={t('spiders:files.rename')}
        label={t('spiders:files.newPath')}
        initial={dialog?.kind === 'rename' ? dialog.entry.path : ''}
        onCancel={() => setDialog(null)}
        onSubmit={submitDialog}
      />
      <Modal
        open={dialog?.kind === 'upload'}
        title={t('spiders:files.uploadZip')}
        okText={t('spiders:files.uploadSubmit')}
        cancelText={t('common:cancel')}
        okButtonProps={{ disabled: !zip, 'data-testid': 'upload-submit' }}
        confirmLoading={zipProgress !== null}
        onOk={() => void doUpload()}
        onCancel={() => {
          if (zipProgress === null) {
            setDialog(null);
            setZip(null);
          }
        }}
        destroyOnHidden
      >
        <Alert type="warning" showIcon message={t('spiders:files.uploadReplaces')} className="files-upload-warning" />
        <ZipDragger file={zip} onChange={setZip} progress={zipProgress} disabled={zipProgress !== null} />
      </Modal>
    </div>
  );
}

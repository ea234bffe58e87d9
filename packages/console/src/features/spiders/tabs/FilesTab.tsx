/**
 * Spider detail, Files tab: directory tree (directories first, names descending) and a CodeMirror editor.
 * Create file/folder, rename, delete, replace all files from a zip, save with Ctrl/Cmd+S or the Save button,
 * unsaved-change guard (switching file, leaving the page, closing the window), binary files offered for download.
 */
import { useState, type KeyboardEvent } from 'react';
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { useFileMutations } from '../api.ts';
import type { FileEntry } from '../types.ts';
import EditorHeader from './files/EditorHeader.tsx';
import EditorPane from './files/EditorPane.tsx';
import FileDialogs from './files/FileDialogs.tsx';
import { dirname, join, within, type Dialog } from './files/fileModel.ts';
import FileTreeSidebar from './files/FileTreeSidebar.tsx';
import UnsavedBlocker from './files/UnsavedBlocker.tsx';
import { useFileTree } from './files/useFileTree.ts';
import { useOpenDocument } from './files/useOpenDocument.ts';
import type { SpiderTabProps } from './types.ts';
import { dialogAction } from '../../../app/dialogAction.ts';

export default function FilesTab({ spider, active }: SpiderTabProps) {
  const id = spider._id;
  const { t } = useTranslation(['spiders', 'common']);
  const { modal, message } = App.useApp();
  const files = useFileMutations(id);
  const [expanded, setExpanded] = useState<string[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [dialog, setDialog] = useState<Dialog>(null);
  const tree = useFileTree(id, expanded);
  const { entries } = tree;
  const opened = useOpenDocument({ id, active, files, setSelected, setExpanded });
  const { openPath, setOpenPath, doc, setDoc, dirty, save, openFile } = opened;

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
      onOk: dialogAction(async () => {
        await files.remove(entry.path);
        closeDocIf((p) => within(p, entry.path));
        setExpanded((xs) => xs.filter((x) => !within(x, entry.path)));
        void message.success(t('spiders:files.deleted', { path: entry.path }));
      }),
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

  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void save();
    }
  };

  return (
    <div className="files-tab" onKeyDown={onKeyDown} data-testid="files-tab">
      {dirty && <UnsavedBlocker onBlocked={opened.onBlocked} />}
      <FileTreeSidebar
        id={id}
        tree={tree}
        expanded={expanded}
        setExpanded={setExpanded}
        selected={selected}
        setSelected={setSelected}
        dirtyPath={dirty && doc ? doc.path : null}
        targetDir={targetDir}
        setDialog={setDialog}
        confirmDelete={confirmDelete}
        openFile={openFile}
        refresh={files.refresh}
      />
      <div className="files-main">
        <EditorHeader
          openPath={openPath}
          openEntry={openPath ? entries.get(openPath) : undefined}
          doc={doc}
          dirty={dirty}
          saving={opened.saving}
          save={save}
          setDialog={setDialog}
          confirmDelete={confirmDelete}
        />
        <div className="files-editor">
          <EditorPane id={id} openPath={openPath} doc={doc} setDoc={setDoc} save={save} />
        </div>
      </div>
      <FileDialogs
        dialog={dialog}
        setDialog={setDialog}
        submitDialog={submitDialog}
        files={files}
        onReplaced={() => {
          setOpenPath(null);
          setDoc(null);
          setSelected(null);
          setExpanded([]);
        }}
      />
    </div>
  );
}

/**
 * The file open in the Files tab's editor: loading it, the unsaved-change guard (switching file, leaving the page,
 * closing the window), opening the file named by `?file=` and saving with Ctrl/Cmd+S or the Save button.
 */
import { useCallback, useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import { App } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { ApiRequestError } from '../../../../api/request.ts';
import { spiderKeys, useFileContent, useFileMutations } from '../../api.ts';
import type { Doc } from './fileModel.ts';

interface OpenDocumentOptions {
  id: string;
  /** Whether the Files tab is the selected one (only then it follows `?file=`). */
  active: boolean;
  files: ReturnType<typeof useFileMutations>;
  setSelected: (path: string | null) => void;
  setExpanded: Dispatch<SetStateAction<string[]>>;
}

export function useOpenDocument({ id, active, files, setSelected, setExpanded }: OpenDocumentOptions) {
  const { t } = useTranslation(['spiders', 'common']);
  const { modal, message } = App.useApp();
  const qc = useQueryClient();
  const [openPath, setOpenPath] = useState<string | null>(null);
  const [doc, setDoc] = useState<Doc | null>(null);
  const [saving, setSaving] = useState(false);

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

  return { openPath, setOpenPath, doc, setDoc, dirty, saving, guard, onBlocked, openFile, save };
}

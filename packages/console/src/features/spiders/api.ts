/** Spiders and their files: TanStack Query hooks over the request helper (list, CRUD, file tree, edits, uploads). */
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiRequestError } from '../../api/request.ts';
import { uploadWithProgress } from '../../api/upload.ts';
import type { FileEntry, Spider, SpiderForm, SpiderList, SpiderListQuery, UploadResult } from './types.ts';

export const spiderKeys = {
  all: ['spiders'] as const,
  list: (q: SpiderListQuery) => ['spiders', 'list', q] as const,
  detail: (id: string) => ['spiders', 'detail', id] as const,
  files: (id: string) => ['spiders', 'files', id] as const,
  dir: (id: string, path: string) => ['spiders', 'files', id, 'dir', path] as const,
  file: (id: string, path: string) => ['spiders', 'files', id, 'file', path] as const,
};

export function useSpiders(q: SpiderListQuery) {
  return useQuery({
    queryKey: spiderKeys.list(q),
    queryFn: async () => {
      const res = await api.get<SpiderList>('/spiders', {
        ...q,
        keyword: q.keyword || undefined,
        project_id: q.project_id || undefined,
      });
      return { list: res.data?.list ?? [], total: res.data?.total ?? res.total ?? 0 };
    },
    placeholderData: (prev) => prev,
  });
}

export function useSpider(id: string | undefined) {
  return useQuery<Spider | null>({
    queryKey: spiderKeys.detail(id ?? ''),
    enabled: !!id,
    queryFn: async () => (await api.get<Spider>(`/spiders/${id}`)).data,
  });
}

function useInvalidateSpiders() {
  const qc = useQueryClient();
  // Lists and project counts only: detail views update themselves, and a kept-alive view of a deleted spider
  // must not be refetched.
  return () => {
    void qc.invalidateQueries({ queryKey: ['spiders', 'list'] });
    void qc.invalidateQueries({ queryKey: ['projects'] });
  };
}

export function useCreateSpider() {
  const invalidate = useInvalidateSpiders();
  return useMutation({
    mutationFn: async ({
      form,
      file,
      onProgress,
    }: {
      form: SpiderForm;
      file?: File | null;
      onProgress?: (p: number) => void;
    }) => {
      if (!file) return (await api.put<Spider>('/spiders', form)).data;
      const body = new FormData();
      for (const [k, v] of Object.entries(form)) {
        if (v === undefined || v === null) continue;
        body.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
      }
      body.append('file', file, file.name);
      return (await uploadWithProgress<Spider>('/spiders', body, { method: 'PUT', onProgress })).data;
    },
    onSuccess: invalidate,
  });
}

export function useUpdateSpider(id: string) {
  const qc = useQueryClient();
  const invalidate = useInvalidateSpiders();
  return useMutation({
    mutationFn: async (form: SpiderForm) => (await api.post<Spider>(`/spiders/${id}`, form)).data,
    onSuccess: (data) => {
      if (data && typeof data === 'object' && '_id' in data) qc.setQueryData(spiderKeys.detail(id), data);
      invalidate();
    },
  });
}

export function useDeleteSpiders() {
  const qc = useQueryClient();
  return useMutation({
    // No batch endpoint in the contract: one DELETE per spider, all attempted, first error re-thrown.
    mutationFn: async (ids: string[]) => {
      const results = await Promise.allSettled(ids.map((id) => api.delete(`/spiders/${id}`)));
      const deleted = ids.filter((_, i) => results[i].status === 'fulfilled');
      // A deleted spider's detail view may still be kept alive (hidden): drop its file queries and mark it gone
      // instead of letting a refetch turn it into 404 toasts.
      for (const id of deleted) {
        await qc.cancelQueries({ queryKey: spiderKeys.files(id) });
        qc.removeQueries({ queryKey: spiderKeys.files(id) });
        qc.setQueryData(spiderKeys.detail(id), null);
      }
      void qc.invalidateQueries({ queryKey: ['spiders', 'list'] });
      void qc.invalidateQueries({ queryKey: ['projects'] });
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length) throw failed[0].reason;
      return deleted.length;
    },
  });
}

// ---------- files ----------

/** The file tree's order, the same as the server's listing: directories first, then names descending. */
export function sortEntries(entries: FileEntry[]): FileEntry[] {
  // Plain code-point order, the same as the server's.
  return [...entries].sort((a, b) =>
    a.is_dir !== b.is_dir ? (a.is_dir ? -1 : 1) : a.name < b.name ? 1 : a.name > b.name ? -1 : 0,
  );
}

export function dirQuery(id: string, path: string) {
  return {
    queryKey: spiderKeys.dir(id, path),
    queryFn: async () => sortEntries((await api.get<FileEntry[]>(`/spiders/${id}/dir`, { path })).data ?? []),
    staleTime: 0,
  };
}

/** Listings of the given directories ('' = root), cached per directory. */
export function useDirs(id: string, paths: string[]) {
  return useQueries({ queries: paths.map((path) => dirQuery(id, path)) });
}

export type FileContent = { kind: 'text'; content: string } | { kind: 'binary'; message: string };

export async function fetchFile(id: string, path: string): Promise<FileContent> {
  try {
    const res = await api.get<string | { content: string }>(`/spiders/${id}/file`, { path }, { silent: true });
    const data = res.data;
    return { kind: 'text', content: typeof data === 'string' ? data : (data?.content ?? '') };
  } catch (err) {
    if (err instanceof ApiRequestError && /binary/i.test(err.body?.error ?? err.errorText))
      return { kind: 'binary', message: err.errorText };
    throw err;
  }
}

export function useFileContent(id: string, path: string | null) {
  return useQuery({
    queryKey: spiderKeys.file(id, path ?? ''),
    enabled: !!path,
    queryFn: () => fetchFile(id, path as string),
    staleTime: Infinity,
    gcTime: 0,
  });
}

export function useFileMutations(id: string) {
  const qc = useQueryClient();
  // Listings only: the open file's text lives in the editor and is not refetched behind its back.
  const refresh = () => qc.invalidateQueries({ queryKey: [...spiderKeys.files(id), 'dir'] });
  return {
    refresh,
    save: (path: string, content: string) => api.post(`/spiders/${id}/file`, { path, content }),
    createFile: async (path: string) => {
      await api.put(`/spiders/${id}/file`, { path });
      await refresh();
    },
    createDir: async (path: string) => {
      await api.put(`/spiders/${id}/dir`, { path });
      await refresh();
    },
    remove: async (path: string) => {
      await api.delete(`/spiders/${id}/file`, { path });
      await refresh();
    },
    rename: async (path: string, newPath: string) => {
      await api.post(`/spiders/${id}/file/rename`, { path, new_path: newPath });
      await refresh();
    },
    uploadZip: async (file: File, onProgress: (p: number) => void) => {
      const body = new FormData();
      body.append('file', file, file.name);
      const res = await uploadWithProgress<UploadResult>(`/spiders/${id}/upload`, body, { onProgress });
      await refresh();
      return res.data;
    },
  };
}

/** Downloads a file's bytes (GET /file?raw=1 needs the token header, so it is fetched and saved as a blob). */
export async function downloadFile(id: string, path: string): Promise<void> {
  const res = await api.get<Blob>(`/spiders/${id}/file`, { path, raw: 1 }, { responseType: 'blob' });
  const url = URL.createObjectURL(res.data);
  const a = document.createElement('a');
  a.href = url;
  a.download = path.split('/').pop() || 'file';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

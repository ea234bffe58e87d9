/** Sites and collected URLs: TanStack Query hooks; request and response types from @crawldeck/shared sites.ts. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CollectedUrl,
  InsertUrlBody,
  Site,
  SiteFilter,
  SiteImportResult,
  SiteList,
  SiteListQuery,
  UpdateUrlBody,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';

/** GET /sites query as the screen keeps it: page fields always set, the filter as an object (sent as JSON). */
export type SiteQuery = Omit<SiteListQuery, 'page_num' | 'page_size' | 'filter'> &
  Required<Pick<SiteListQuery, 'page_num' | 'page_size'>> & { filter: SiteFilter };

export function useSites(q: SiteQuery) {
  return useQuery({
    queryKey: ['sites', q],
    queryFn: async () =>
      (
        await api.get<SiteList>('/sites', {
          page_num: q.page_num,
          page_size: q.page_size,
          keyword: q.keyword || undefined,
          filter: JSON.stringify(q.filter),
        })
      ).data,
    placeholderData: (prev) => prev,
  });
}

export function useMainCategories() {
  return useQuery({
    queryKey: ['sites', 'main-categories'],
    queryFn: async () => (await api.get<{ items: string[] }>('/sites/get/get_main_category_list')).data.items,
  });
}

export function useCategories(mainCategory?: string) {
  return useQuery({
    queryKey: ['sites', 'categories', mainCategory ?? ''],
    queryFn: async () =>
      (await api.get<{ items: string[] }>('/sites/get/get_category_list', { main_category: mainCategory || undefined }))
        .data.items,
  });
}

export function useUpdateSiteCategory() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, category }: { id: string; category: string }) =>
      (await api.post<Site>(`/sites/${id}`, { category })).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['sites'] }),
  });
}

export function useImportSites() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return (await api.post<SiteImportResult>('/sites/import', form, { timeout: 120_000 })).data;
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['sites'] }),
  });
}

export function useCollectedUrls(page: number, limited: number, regionCode?: string) {
  return useQuery({
    queryKey: ['collected-urls', page, limited, regionCode ?? ''],
    queryFn: async () => {
      const res = await api.get<CollectedUrl[]>('/queryUrl', { page, limited, regionCode: regionCode || undefined });
      return {
        data: res.data ?? [],
        totalCount: (res as unknown as { totalCount?: number }).totalCount ?? res.total ?? 0,
      };
    },
    placeholderData: (prev) => prev,
  });
}

export function useSaveUrl() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: InsertUrlBody | UpdateUrlBody) =>
      ('id' in body
        ? await api.post<CollectedUrl>('/updateUrl', body)
        : await api.post<CollectedUrl>('/insertUrl', body)
      ).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['collected-urls'] }),
  });
}

export function useDeleteUrl() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.get('/deleteUrl', { id })).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['collected-urls'] }),
  });
}

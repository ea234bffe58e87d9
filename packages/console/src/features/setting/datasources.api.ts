/** Settings → Database → Data Sources and a spider's data source: TanStack Query hooks. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CreateDataSourceBody,
  DataSourceChoice,
  DataSourceInfo,
  DataSourceTestResult,
  SpiderTargetBody,
  SpiderTargetInfo,
  TestDataSourceBody,
  UpdateDataSourceBody,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';

const LIST = ['data-sources'];

export function useDataSources(enabled: boolean) {
  return useQuery({
    queryKey: LIST,
    enabled,
    queryFn: async () => (await api.get<DataSourceInfo[]>('/data-sources')).data ?? [],
  });
}

export function useDataSourceChoices() {
  return useQuery({
    queryKey: ['data-source-choices'],
    queryFn: async () => (await api.get<DataSourceChoice[]>('/data-sources-choices')).data ?? [],
  });
}

export function useSaveDataSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body }: { id?: string; body: CreateDataSourceBody | UpdateDataSourceBody }) =>
      (id
        ? await api.post<DataSourceInfo>(`/data-sources/${id}`, body)
        : await api.put<DataSourceInfo>('/data-sources', body)
      ).data,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: LIST });
      void qc.invalidateQueries({ queryKey: ['data-source-choices'] });
    },
  });
}

export function useDeleteDataSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/data-sources/${id}`)).data,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: LIST });
      void qc.invalidateQueries({ queryKey: ['data-source-choices'] });
    },
  });
}

export function useTestDataSource() {
  return useMutation({
    mutationFn: async (body: TestDataSourceBody) =>
      (await api.post<DataSourceTestResult>('/data-sources-test', body)).data,
  });
}

export function useSpiderTarget(spiderId: string) {
  return useQuery({
    queryKey: ['spider-target', spiderId],
    queryFn: async () => (await api.get<SpiderTargetInfo>(`/spiders/${spiderId}/data-source`)).data,
  });
}

export function useSaveSpiderTarget(spiderId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: SpiderTargetBody) =>
      (await api.post<SpiderTargetInfo>(`/spiders/${spiderId}/data-source`, body)).data,
    onSuccess: (data) => {
      qc.setQueryData(['spider-target', spiderId], data);
      void qc.invalidateQueries({ queryKey: LIST });
    },
  });
}

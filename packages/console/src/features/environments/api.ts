/**
 * Node environments: hooks over the request helper. States are polled every 2 s while something is being
 * installed (the job runs on the node; its log grows on the master), and not at all otherwise.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  DependencyRow,
  EnvJob,
  EnvJobBody,
  EnvLanguage,
  EnvSettings,
  NodeEnvironment,
  PackageSearchHit,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';

const LIVE_MS = 2_000;

export const envKeys = {
  all: ['environments'] as const,
  node: (id: string) => ['environments', 'node', id] as const,
  jobs: (nodeId: string) => ['environments', 'jobs', nodeId] as const,
  deps: ['environments', 'dependencies'] as const,
  settings: ['environments', 'settings'] as const,
  languages: ['environments', 'languages'] as const,
};

const busy = (jobs: EnvJob[] | undefined) => !!jobs?.some((j) => j.status === 'pending' || j.status === 'running');

export function useNodeEnvironment(nodeId: string) {
  return useQuery({
    queryKey: envKeys.node(nodeId),
    enabled: !!nodeId,
    queryFn: async () => (await api.get<NodeEnvironment>(`/nodes/${nodeId}/environment`)).data,
    refetchInterval: (q) => {
      const env = q.state.data;
      const installing = env && [...env.languages, ...env.pip, ...env.npm].some((x) => x.state === 'installing');
      return installing ? LIVE_MS : false;
    },
  });
}

/** The node's latest install jobs; only administrators may read them (`enabled` false for others). */
export function useEnvJobs(nodeId: string, enabled = true) {
  return useQuery({
    queryKey: envKeys.jobs(nodeId),
    enabled: !!nodeId && enabled,
    queryFn: async () => (await api.get<EnvJob[]>('/env-jobs', { node_id: nodeId, limit: 20 })).data ?? [],
    refetchInterval: (q) => (busy(q.state.data) ? LIVE_MS : false),
  });
}

export function useDependencies() {
  return useQuery({
    queryKey: envKeys.deps,
    queryFn: async () => (await api.get<DependencyRow[]>('/env-dependencies')).data ?? [],
    refetchInterval: (q) =>
      q.state.data?.some((d) => d.nodes.some((n) => n.state === 'installing')) ? LIVE_MS : false,
  });
}

/** The language catalogue with each language's system packages (the uninstall confirmation names them). */
export function useEnvLanguages(enabled: boolean) {
  return useQuery({
    queryKey: envKeys.languages,
    enabled,
    queryFn: async () => (await api.get<EnvLanguage[]>('/env-languages')).data ?? [],
  });
}

export function useStartEnvJob() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: EnvJobBody) => (await api.post<EnvJob[]>('/env-jobs', body)).data ?? [],
    onSuccess: () => void qc.invalidateQueries({ queryKey: envKeys.all }),
  });
}

/** Cancels a job that waits, or one whose node is not online (the master refuses others with the reason). */
export function useCancelEnvJob() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.post<EnvJob>(`/env-jobs/${id}/cancel`, {})).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: envKeys.all }),
  });
}

export function useEnvSettings(enabled: boolean) {
  return useQuery({
    queryKey: envKeys.settings,
    enabled,
    queryFn: async () => (await api.get<EnvSettings>('/env-settings')).data,
  });
}

export function useSaveEnvSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: EnvSettings) => (await api.post<EnvSettings>('/env-settings', body)).data,
    onSuccess: (s) => qc.setQueryData(envKeys.settings, s),
  });
}

export async function searchPackages(target: 'pip' | 'npm', q: string): Promise<PackageSearchHit[]> {
  return (await api.get<PackageSearchHit[]>('/env-packages/search', { target, q })).data ?? [];
}

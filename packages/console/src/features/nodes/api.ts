/** Nodes: TanStack Query hooks over the request helper (spec §7 "Nodes", GET /nodes-join). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { NodeEditBody, NodeInfo, NodeMetrics, SystemInfo } from '@crawldeck/shared';
import { api } from '../../api/request.ts';

/**
 * Node status (online / offline / unavailable) comes from heartbeats on the master, which pushes no node event to
 * the console; task changes (running counts) arrive over /api/events. Lists refresh every 10 s while shown.
 */
export const NODE_REFRESH_MS = 10_000;

export interface NodeJoin {
  master_url: string;
  key: string;
  command: string;
  docs_url: string;
  offline_seconds: number;
}

export interface MetricSample {
  ts: string;
  cpu: number;
  mem: number;
  disk: number;
  running: number;
}

export interface NodeSystem extends Partial<SystemInfo> {
  systemInfo: SystemInfo | Record<string, never>;
  metrics: MetricSample[];
  current: NodeMetrics | null;
}

export const nodeKeys = {
  all: ['nodes'] as const,
  list: ['nodes', 'list'] as const,
  detail: (id: string) => ['nodes', 'detail', id] as const,
  system: (id: string, minutes: number) => ['nodes', 'system', id, minutes] as const,
  join: ['nodes', 'join'] as const,
};

export function useNodes(refresh = true) {
  return useQuery({
    queryKey: nodeKeys.list,
    queryFn: async () => (await api.get<NodeInfo[]>('/nodes')).data ?? [],
    refetchInterval: refresh ? NODE_REFRESH_MS : false,
  });
}

export function useNode(id: string, refresh = true) {
  return useQuery<NodeInfo | null>({
    queryKey: nodeKeys.detail(id),
    enabled: !!id,
    queryFn: async () => (await api.get<NodeInfo>(`/nodes/${id}`)).data ?? null,
    refetchInterval: refresh ? NODE_REFRESH_MS : false,
  });
}

export function useNodeSystem(id: string, minutes: number, enabled: boolean) {
  return useQuery({
    queryKey: nodeKeys.system(id, minutes),
    enabled: enabled && !!id,
    queryFn: async () => (await api.get<NodeSystem>(`/nodes/${id}/system`, { minutes })).data,
    refetchInterval: enabled ? NODE_REFRESH_MS : false,
  });
}

export function useNodeJoin(enabled: boolean) {
  return useQuery({
    queryKey: nodeKeys.join,
    enabled,
    queryFn: async () => (await api.get<NodeJoin>('/nodes-join', undefined, { silent: true })).data,
    staleTime: 5 * 60_000,
    retry: false,
  });
}

export function useUpdateNode() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body }: { id: string; body: NodeEditBody }) => (await api.post<NodeInfo>(`/nodes/${id}`, body)).data,
    onSuccess: (n) => {
      if (n) qc.setQueryData(nodeKeys.detail(n._id), n);
      void qc.invalidateQueries({ queryKey: nodeKeys.list });
    },
  });
}

export function useDeleteNode() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/nodes/${id}`)).data,
    onSuccess: (_d, id) => {
      qc.removeQueries({ queryKey: nodeKeys.detail(id) });
      void qc.invalidateQueries({ queryKey: nodeKeys.list });
    },
  });
}

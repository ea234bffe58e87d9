/** Nodes: TanStack Query hooks over the request helper (list, detail, system metrics, how to join a node, edit). */
import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { NodeEditBody, NodeInfo, NodeJoin, NodeSystem } from '@crawldeck/shared';
import { api } from '../../api/request.ts';
import { subscribeEvents } from '../tasks/sse.ts';

/**
 * Node views follow the master's pushes on `GET /api/events` instead of polling: `node.status` when a node comes,
 * goes or changes availability, `node.heartbeat` every heartbeat (with its metrics). A shown query is refetched at
 * most once per NODE_EVENT_COALESCE_MS; task changes (running counts) arrive as `task.status` (useTaskEvents).
 */
export const NODE_EVENT_COALESCE_MS = 2_000;

function useNodeEventRefresh(enabled: boolean, queryKey: QueryKey, nodeId?: string) {
  const qc = useQueryClient();
  const key = JSON.stringify(queryKey);
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = subscribeEvents((event, data) => {
      const isNodeEvent = event === 'node.status' || event === 'node.heartbeat' || event === 'open';
      if (!isNodeEvent || (nodeId && event !== 'open' && (data as { nodeId?: string })?.nodeId !== nodeId)) return;
      timer ??= setTimeout(() => {
        timer = null;
        void qc.invalidateQueries({ queryKey: JSON.parse(key) as QueryKey });
      }, NODE_EVENT_COALESCE_MS);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [enabled, key, nodeId, qc]);
}

/** Shapes of the join panel, a metrics sample and the system view: the server's own response schemas. */
export type { MetricSample, NodeJoin, NodeSystem } from '@crawldeck/shared';

export const nodeKeys = {
  all: ['nodes'] as const,
  list: ['nodes', 'list'] as const,
  detail: (id: string) => ['nodes', 'detail', id] as const,
  system: (id: string, minutes: number) => ['nodes', 'system', id, minutes] as const,
  join: ['nodes', 'join'] as const,
};

export function useNodes(refresh = true) {
  useNodeEventRefresh(refresh, nodeKeys.list);
  return useQuery({
    queryKey: nodeKeys.list,
    queryFn: async () => (await api.get<NodeInfo[]>('/nodes')).data ?? [],
  });
}

export function useNode(id: string, refresh = true) {
  useNodeEventRefresh(refresh && !!id, nodeKeys.detail(id), id);
  return useQuery<NodeInfo | null>({
    queryKey: nodeKeys.detail(id),
    enabled: !!id,
    queryFn: async () => (await api.get<NodeInfo>(`/nodes/${id}`)).data ?? null,
  });
}

export function useNodeSystem(id: string, minutes: number, enabled: boolean) {
  useNodeEventRefresh(enabled && !!id, nodeKeys.system(id, minutes), id);
  return useQuery({
    queryKey: nodeKeys.system(id, minutes),
    enabled: enabled && !!id,
    queryFn: async () => (await api.get<NodeSystem>(`/nodes/${id}/system`, { minutes })).data,
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
    mutationFn: async ({ id, body }: { id: string; body: NodeEditBody }) =>
      (await api.post<NodeInfo>(`/nodes/${id}`, body)).data,
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

/** Nodes: TanStack Query hooks over the request helper (list, detail, system metrics, how to join a node, edit). */
import { useEffect, useMemo, useRef } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type {
  NodeChange,
  NodeEditBody,
  NodeInfo,
  NodeJoin,
  NodeKeyIssued,
  NodeKeyState,
  NodeListItem,
  NodeListQuery,
  NodeSystem,
  NodesEvent,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';
import { subscribeEvents, watchNodes } from '../tasks/sse.ts';

/**
 * Node views follow the master's pushes on `GET /api/events` instead of polling: one `nodes` event a second at
 * most, with the latest state of the nodes that changed. Every status change comes; metrics and last-seen times
 * only of the nodes a shown screen watches (the rows of the list page shown, the node of a detail page). Changes are
 * applied to the shown data in place; a node a view does not hold yet (a new node, another page) refetches it at
 * most once per NODE_EVENT_COALESCE_MS. Task changes (running counts) arrive as `tasks` (useTaskEvents).
 */
export const NODE_EVENT_COALESCE_MS = 2_000;

/** A node row with a change applied. */
function applyChange<T extends NodeListItem | NodeInfo>(n: T, c: NodeChange): T {
  return {
    ...n,
    status: c.status,
    ...(c.metrics ? { metrics: c.metrics } : {}),
    ...(c.last_seen_ts ? { last_seen_ts: c.last_seen_ts } : {}),
  };
}

/**
 * Follows node changes for one query: `apply` patches the query's data and says whether a change concerned a
 * node it does not hold (then the query is refetched, coalesced); a reconnect refetches it too.
 */
function useNodeChanges<T>(
  enabled: boolean,
  queryKey: QueryKey,
  watch: readonly string[],
  apply: (data: T, changes: NodeChange[]) => { data: T; unknown: boolean },
) {
  const qc = useQueryClient();
  const key = JSON.stringify(queryKey);
  const applyRef = useRef(apply);
  applyRef.current = apply;
  const watched = watch.join(',');
  useEffect(() => {
    if (!enabled) return;
    const k = JSON.parse(key) as QueryKey;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const refetchSoon = () => {
      timer ??= setTimeout(() => {
        timer = null;
        void qc.invalidateQueries({ queryKey: k });
      }, NODE_EVENT_COALESCE_MS);
    };
    const unwatch = watched ? watchNodes(watched.split(',')) : () => undefined;
    const unsubscribe = subscribeEvents((event, payload) => {
      if (event === 'open') return refetchSoon();
      if (event !== 'nodes') return;
      const data = qc.getQueryData<T>(k);
      if (data === undefined) return;
      const r = applyRef.current(data, (payload as NodesEvent).nodes);
      qc.setQueryData(k, r.data);
      if (r.unknown) refetchSoon();
    });
    return () => {
      unsubscribe();
      unwatch();
      if (timer) clearTimeout(timer);
    };
  }, [enabled, key, watched, qc]);
}

/** Applies changes to a list of nodes; `unknown` when one concerns a node not in it. */
function applyToList<T extends NodeListItem>(rows: T[], changes: NodeChange[]) {
  const byId = new Map(changes.map((c) => [c.nodeId, c]));
  let hits = 0;
  const data = rows.map((n) => {
    const c = byId.get(n._id);
    if (!c) return n;
    hits++;
    return applyChange(n, c);
  });
  return { data, unknown: hits < byId.size };
}

/** Shapes of the join panel, a metrics sample and the system view: the server's own response schemas. */
export type { MetricSample, NodeJoin, NodeSystem } from '@crawldeck/shared';

export const nodeKeys = {
  all: ['nodes'] as const,
  list: ['nodes', 'list'] as const,
  page: (q: NodeListQuery) => ['nodes', 'list', 'page', q] as const,
  detail: (id: string) => ['nodes', 'detail', id] as const,
  system: (id: string, minutes: number) => ['nodes', 'system', id, minutes] as const,
  join: ['nodes', 'join'] as const,
  key: (id: string) => ['nodes', 'key', id] as const,
};

/** The whole fleet (network and dependency views, selectors). */
export function useNodes(refresh = true) {
  useNodeChanges<NodeListItem[]>(refresh, nodeKeys.list, [], applyToList);
  return useQuery({
    queryKey: nodeKeys.list,
    queryFn: async () => (await api.get<NodeListItem[]>('/nodes')).data ?? [],
  });
}

export interface NodePage {
  rows: NodeListItem[];
  total: number;
}

/**
 * One page of the node list, paged and filtered by the master. The page's nodes are watched (their heartbeats
 * update the rows); a status change elsewhere refetches the page, as it may move nodes in or out of it.
 */
export function useNodePage(q: NodeListQuery, refresh = true) {
  const query = useQuery({
    queryKey: nodeKeys.page(q),
    queryFn: async (): Promise<NodePage> => {
      const r = await api.get<NodeListItem[]>('/nodes', q);
      return { rows: r.data ?? [], total: r.total ?? 0 };
    },
    placeholderData: keepPreviousData,
  });
  const ids = useMemo(() => (query.data?.rows ?? []).map((n) => n._id), [query.data]);
  useNodeChanges<NodePage>(refresh, nodeKeys.page(q), ids, (page, changes) => {
    const r = applyToList(page.rows, changes);
    return { data: { ...page, rows: r.data }, unknown: r.unknown };
  });
  return query;
}

export function useNode(id: string, refresh = true) {
  useNodeChanges<NodeInfo | null>(refresh && !!id, nodeKeys.detail(id), id ? [id] : [], (n, changes) => {
    const c = changes.find((x) => x.nodeId === id);
    return { data: n && c ? applyChange(n, c) : n, unknown: false };
  });
  return useQuery<NodeInfo | null>({
    queryKey: nodeKeys.detail(id),
    enabled: !!id,
    queryFn: async () => (await api.get<NodeInfo>(`/nodes/${id}`)).data ?? null,
  });
}

/** The Monitor charts: the history is refetched (coalesced) when the node reports new metrics. */
export function useNodeSystem(id: string, minutes: number, enabled: boolean) {
  useNodeChanges<NodeSystem>(enabled && !!id, nodeKeys.system(id, minutes), id ? [id] : [], (sys, changes) => ({
    data: sys,
    unknown: changes.some((c) => c.nodeId === id && !!c.metrics),
  }));
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

/** The node's own key for the node API (administrators): its state, never the key. */
export function useNodeKey(id: string, enabled: boolean) {
  return useQuery({
    queryKey: nodeKeys.key(id),
    enabled: enabled && !!id,
    queryFn: async () => (await api.get<NodeKeyState>(`/nodes/${id}/key`)).data,
  });
}

/** Rotate (a new key, shown once in the answer) or revoke the node's own key. */
export function useChangeNodeKey(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (action: 'rotate' | 'revoke'): Promise<NodeKeyState | NodeKeyIssued> =>
      action === 'rotate'
        ? (await api.post<NodeKeyIssued>(`/nodes/${id}/key`)).data
        : (await api.delete<NodeKeyState>(`/nodes/${id}/key`)).data,
    onSuccess: (state) => {
      if (!state) return;
      // The cached state never holds the key itself.
      const { has_key, revoked, created_at, last_used_at, revoked_at } = state;
      qc.setQueryData(nodeKeys.key(id), { has_key, revoked, created_at, last_used_at, revoked_at });
    },
  });
}

/** Tasks, logs, results and deploys: TanStack Query hooks over the request helper; the types come from @crawldeck/shared. */
import { useEffect, useRef } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ALL_SPIDERS_PAGE_SIZE,
  LOG_PAGE_SIZE,
  RESULTS_PAGE_SIZE,
  TASK_PAGE_SIZE,
  type ApiOk,
  type DeployInfo,
  type KeysetFields,
  type ResultFormat,
  type LogLine,
  type LogPageResponse,
  type NodeInfo,
  type RunType,
  type ScheduleInfo,
  type TaskDetail,
  type TaskInfo,
  type TaskListQuery,
  type TaskStatus,
  type TaskChange,
  type TaskResult,
  type TasksEvent,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';
import { subscribeEvents } from './sse.ts';

/** GET /tasks query as the list screen keeps it: page size always set, a cursor past the first page, one status. */
export type TaskQuery = Omit<TaskListQuery, 'page_num' | 'page_size' | 'status'> &
  Required<Pick<TaskListQuery, 'page_size'>> & { status?: TaskStatus };

export type { TaskDetail };

export type DeployRow = DeployInfo;

export const taskKeys = {
  all: ['tasks'] as const,
  list: (q: TaskQuery) => ['tasks', 'list', q] as const,
  spider: (id: string, cursor?: string) => ['tasks', 'spider', id, cursor ?? null] as const,
  node: (id: string, cursor?: string) => ['tasks', 'node', id, cursor ?? null] as const,
  detail: (id: string) => ['tasks', 'detail', id] as const,
  log: (id: string, page: number, keyword: string) => ['tasks', 'log', id, page, keyword] as const,
  errors: (id: string) => ['tasks', 'errors', id] as const,
  results: (id: string, page: number) => ['tasks', 'results', id, page] as const,
  deploys: (spiderId: string, page: number) => ['deploys', spiderId, page] as const,
};

/** A page of a task list as the screens read it: the rows, the capped total and the cursors around the page. */
async function taskPage(path: string, query: Record<string, unknown>) {
  const r = (await api.get<TaskInfo[]>(path, query)) as ApiOk<TaskInfo[]> & KeysetFields;
  return {
    list: r.data ?? [],
    total: r.total ?? 0,
    capped: r.total_capped ?? false,
    next: r.next ?? null,
    prev: r.prev ?? null,
    last: r.last ?? null,
  };
}

/** GET /tasks by keyset cursor (`next`, `prev`, `last` of the answer); the first page has none. */
export function useTasks(q: TaskQuery) {
  return useQuery({
    queryKey: taskKeys.list(q),
    queryFn: () => taskPage('/tasks', { ...q, type: q.type ?? 'spider' }),
    placeholderData: keepPreviousData,
  });
}

/** Tasks of one spider (GET /spiders/{id}/tasks) or of one node (GET /nodes/{id}/tasks), by cursor like /tasks. */
export function useOwnerTasks(kind: 'spider' | 'node', id: string, cursor: string | undefined, enabled = true) {
  return useQuery({
    queryKey: kind === 'spider' ? taskKeys.spider(id, cursor) : taskKeys.node(id, cursor),
    enabled: enabled && !!id,
    queryFn: () =>
      taskPage(`/${kind === 'spider' ? 'spiders' : 'nodes'}/${id}/tasks`, { cursor, page_size: TASK_PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
}

export function useTask(id: string) {
  return useQuery<TaskDetail | null>({
    queryKey: taskKeys.detail(id),
    enabled: !!id,
    queryFn: async () => (await api.get<TaskDetail>(`/tasks/${id}`)).data ?? null,
  });
}

export function useTaskLog(id: string, page: number, keyword: string, enabled = true) {
  return useQuery({
    queryKey: taskKeys.log(id, page, keyword),
    enabled: enabled && !!id,
    queryFn: async () => {
      const r: Partial<LogPageResponse> = await api.get<LogLine[]>(`/tasks/${id}/log`, {
        page_num: page,
        page_size: LOG_PAGE_SIZE,
        keyword: keyword || undefined,
      });
      // A search that ran out of time counted only part of the matches: its total is a lower bound.
      return { list: r.data ?? [], total: r.total ?? 0, partial: r.total_partial === true };
    },
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}

export function useErrorLog(id: string, enabled = true) {
  return useQuery({
    queryKey: taskKeys.errors(id),
    enabled: enabled && !!id,
    queryFn: async () => {
      const r = await api.get<LogLine[]>(`/tasks/${id}/error-log`);
      return { list: r.data ?? [], total: r.total ?? 0 };
    },
    staleTime: 0,
  });
}

export function useTaskResults(id: string, page: number, enabled = true) {
  return useQuery({
    queryKey: taskKeys.results(id, page),
    enabled: enabled && !!id,
    queryFn: async () => {
      const r = await api.get<TaskResult[]>(`/tasks/${id}/results`, { page_num: page, page_size: RESULTS_PAGE_SIZE });
      return { list: r.data ?? [], total: r.total ?? 0 };
    },
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}

export function useDeploys(spiderId: string, page: number, enabled = true) {
  return useQuery({
    queryKey: taskKeys.deploys(spiderId, page),
    enabled: enabled && !!spiderId,
    queryFn: async () => {
      const r = await api.get<DeployRow[]>('/deploys', { spider_id: spiderId, page_num: page, page_size: 10 });
      return { list: r.data ?? [], total: r.total ?? 0 };
    },
    placeholderData: keepPreviousData,
  });
}

/** Options of the list filters. */
export function useFilterOptions() {
  const spiders = useQuery({
    queryKey: ['spiders', 'options'],
    queryFn: async () => {
      const r = await api.get<{ list: { _id: string; name: string; display_name?: string }[] }>('/spiders', {
        page_num: 1,
        page_size: ALL_SPIDERS_PAGE_SIZE,
      });
      return r.data?.list ?? [];
    },
  });
  const nodes = useQuery({
    queryKey: ['nodes', 'list'],
    queryFn: async () => (await api.get<NodeInfo[]>('/nodes')).data ?? [],
  });
  const schedules = useQuery({
    queryKey: ['schedules', 'options'],
    queryFn: async () => (await api.get<ScheduleInfo[]>('/schedules')).data ?? [],
  });
  return { spiders, nodes, schedules };
}

/** Scrapy spider names of a Scrapy project (the Run dialog's spider select). */
export function useScrapySpiderNames(spiderId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['spiders', 'scrapy-names', spiderId],
    enabled: enabled && !!spiderId,
    queryFn: async () =>
      (await api.get<string[]>(`/spiders/${spiderId}/scrapy/spiders`, undefined, { silent: true })).data ?? [],
    retry: false,
    staleTime: 60_000,
  });
}

function useInvalidateTasks() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: taskKeys.all });
    void qc.invalidateQueries({ queryKey: ['nodes'] });
  };
}

export function useRunTask() {
  const invalidate = useInvalidateTasks();
  return useMutation({
    mutationFn: async (body: {
      spider_id: string;
      run_type: RunType;
      node_ids?: string[];
      param?: string;
      priority?: number;
      timeout?: number;
    }) => (await api.put<string[]>('/tasks', body)).data ?? [],
    onSuccess: invalidate,
  });
}

export function useRunSpiders() {
  const invalidate = useInvalidateTasks();
  return useMutation({
    mutationFn: async (body: {
      task_params: { spider_id: string; param?: string; priority?: number; timeout?: number }[];
      run_type: RunType;
      node_ids?: string[];
    }) => (await api.post<string[]>('/spiders-run', body)).data ?? [],
    onSuccess: invalidate,
  });
}

/** Moves a waiting task to another place in the queue (POST /tasks/{id}/priority). */
export function useChangePriority() {
  const invalidate = useInvalidateTasks();
  return useMutation({
    mutationFn: async ({ id, priority }: { id: string; priority: number }) =>
      (await api.post(`/tasks/${id}/priority`, { priority })).data,
    onSuccess: invalidate,
  });
}

export function useCancelTasks() {
  const invalidate = useInvalidateTasks();
  return useMutation({
    mutationFn: async (ids: string[]) =>
      (ids.length === 1 ? await api.post(`/tasks/${ids[0]}/cancel`) : await api.post('/tasks-cancel', { ids })).data,
    onSuccess: invalidate,
  });
}

export function useRestartTasks() {
  const invalidate = useInvalidateTasks();
  return useMutation({
    mutationFn: async (ids: string[]) =>
      (ids.length === 1
        ? await api.post<string[]>(`/tasks/${ids[0]}/restart`)
        : await api.post<string[]>('/tasks-restart', { ids })
      ).data ?? [],
    onSuccess: invalidate,
  });
}

export function useDeleteTasks() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (ids: string[]) =>
      (ids.length === 1 ? await api.delete(`/tasks/${ids[0]}`) : await api.delete('/tasks', { ids })).data,
    onSuccess: (_d, ids) => {
      for (const id of ids) qc.removeQueries({ queryKey: taskKeys.detail(id) });
      void qc.invalidateQueries({ queryKey: ['tasks', 'list'] });
      void qc.invalidateQueries({ queryKey: ['tasks', 'spider'] });
      void qc.invalidateQueries({ queryKey: ['tasks', 'node'] });
      void qc.invalidateQueries({ queryKey: ['nodes'] });
    },
  });
}

/**
 * Saves the task's results in one of the server's formats (CSV, JSON, JSON Lines, Excel) under the name the server
 * gives (the spider and the task). CSV only: `bom` asks for a UTF-8 byte order mark first, which Excel needs to read
 * Chinese text correctly; text cells that a spreadsheet would run as formulas come with a leading single quote
 * unless `keepFormulas` asks for the text exactly as crawled.
 */
export async function downloadResults(
  id: string,
  format: ResultFormat,
  options: { bom?: boolean; keepFormulas?: boolean } = {},
): Promise<void> {
  const params = {
    ...(format === 'csv' ? {} : { format }),
    ...(options.bom ? { bom: 1 } : {}),
    ...(options.keepFormulas ? { neutralise: '0' } : {}),
  };
  const r = await api.get<File>(`/tasks/${id}/results/download`, params, {
    responseType: 'blob',
    timeout: 10 * 60_000,
  });
  const url = URL.createObjectURL(r.data);
  const a = document.createElement('a');
  a.href = url;
  a.download = r.data.name || `${id}.${format}`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Live task updates (no polling): every `tasks` event of `GET /api/events` (at most one a second, each changed task
 * once with its latest status) refreshes the task queries and node counts (coalesced over 250 ms); `onStatus` is
 * called once per task of the event. Active while `enabled` (kept-alive views pass false while hidden).
 */
export function useTaskEvents(enabled = true, onStatus?: (ev: TaskChange) => void) {
  const qc = useQueryClient();
  const cb = useRef(onStatus);
  cb.current = onStatus;
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      void qc.invalidateQueries({ queryKey: ['tasks', 'list'] });
      void qc.invalidateQueries({ queryKey: ['tasks', 'spider'] });
      void qc.invalidateQueries({ queryKey: ['tasks', 'node'] });
      // Running counts: the node list page and node details show them (the whole fleet, for selectors, does not).
      void qc.invalidateQueries({ queryKey: ['nodes', 'list', 'page'] });
      void qc.invalidateQueries({ queryKey: ['nodes', 'detail'] });
    };
    // Becoming active (or a kept-alive view shown again): resync once, events may have been missed meanwhile.
    timer = setTimeout(flush, 0);
    const unsubscribe = subscribeEvents((event, data) => {
      if (event !== 'tasks' && event !== 'open') return;
      if (event === 'tasks') for (const ev of (data as TasksEvent).tasks) cb.current?.(ev);
      timer ??= setTimeout(flush, 250);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [enabled, qc]);
}

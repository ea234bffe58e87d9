/** Schedules: TanStack Query hooks over the request helper (also a spider's schedules); types from @crawldeck/shared. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ALL_SPIDERS_PAGE_SIZE,
  type NodeInfo,
  type ScheduleBody,
  type ScheduleFireInfo,
  type ScheduleInfo,
  type ScheduleMeta,
  type TaskInfo,
} from '@crawldeck/shared';
import { api } from '../../api/request.ts';

export const scheduleKeys = {
  all: ['schedules'] as const,
  list: (spiderId?: string) => ['schedules', 'list', spiderId ?? ''] as const,
  tasks: (id: string, page: number) => ['schedules', 'tasks', id, page] as const,
  fires: (id: string) => ['schedules', 'fires', id] as const,
  meta: ['schedules', 'meta'] as const,
};

export type { ScheduleMeta };

/** A task of a schedule, shown like every task. */
export type ScheduleTask = TaskInfo;

/** All schedules, or those of one spider (Spider detail → Schedules). Refreshed every 5 s for next/last run. */
export function useSchedules(spiderId?: string, enabled = true) {
  return useQuery({
    queryKey: scheduleKeys.list(spiderId),
    enabled,
    queryFn: async () =>
      (await api.get<ScheduleInfo[]>(spiderId ? `/spiders/${spiderId}/schedules` : '/schedules')).data ?? [],
    refetchInterval: 5000,
  });
}

export function useScheduleMeta() {
  return useQuery({
    queryKey: scheduleKeys.meta,
    queryFn: async () => (await api.get<ScheduleMeta>('/schedules/meta')).data,
    staleTime: 5 * 60_000,
  });
}

export function useScheduleTasks(id: string | null, page: number, pageSize = 10) {
  return useQuery({
    queryKey: scheduleKeys.tasks(id ?? '', page),
    enabled: !!id,
    queryFn: async () => {
      const r = await api.get<ScheduleTask[]>(`/schedules/${id}/tasks`, { page_num: page, page_size: pageSize });
      return { list: r.data ?? [], total: r.total ?? 0 };
    },
    refetchInterval: 2000,
  });
}

/** A schedule's latest fires (GET /schedules/{id}/fires): what each made, or why it made nothing. */
export function useScheduleFires(id: string | null, pageSize = 10) {
  return useQuery({
    queryKey: scheduleKeys.fires(id ?? ''),
    enabled: !!id,
    queryFn: async () =>
      (await api.get<ScheduleFireInfo[]>(`/schedules/${id}/fires`, { page_num: 1, page_size: pageSize })).data ?? [],
    refetchInterval: 5000,
  });
}

/** Spiders for the schedule form's select: all of them, in one page of the largest size. */
export function useSpiderOptions() {
  return useQuery({
    queryKey: ['spiders', 'options'],
    queryFn: async () => {
      const r = await api.get<{ list: { _id: string; name: string; display_name?: string }[] }>('/spiders', {
        page_num: 1,
        page_size: ALL_SPIDERS_PAGE_SIZE,
      });
      return r.data?.list ?? [];
    },
  });
}

export function useNodeOptions() {
  return useQuery({
    queryKey: ['nodes', 'options'],
    queryFn: async () => (await api.get<NodeInfo[]>('/nodes')).data ?? [],
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: scheduleKeys.all });
    void qc.invalidateQueries({ queryKey: ['tasks'] });
  };
}

export function useSaveSchedule() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async ({ id, form }: { id?: string; form: ScheduleBody }) =>
      (id ? await api.post<ScheduleInfo>(`/schedules/${id}`, form) : await api.put<ScheduleInfo>('/schedules', form))
        .data,
    onSuccess: invalidate,
  });
}

export function useDeleteSchedule() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (id: string) => (await api.delete(`/schedules/${id}`)).data,
    onSuccess: invalidate,
  });
}

/** Enable/disable: silent request; on failure the caller shows 'Enabling/Disabling the schedule unsuccessful'. */
export function useToggleSchedule() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async ({ id, enabled }: { id: string; enabled: boolean }) =>
      (await api.post<ScheduleInfo>(`/schedules/${id}/${enabled ? 'enable' : 'disable'}`, undefined, { silent: true }))
        .data,
    onSettled: invalidate,
  });
}

export function useRunSchedule() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (id: string) =>
      (await api.post<{ task_ids: string[]; fire_ts: string }>(`/schedules/${id}/run`)).data,
    onSuccess: invalidate,
  });
}

/** Scrapy run statistics of a task (Stats tab) and of a spider's latest runs (Analytics tab). */
import { useQuery } from '@tanstack/react-query';
import type { SpiderScrapyRun, TaskScrapyStats } from '@crawldeck/shared';
import { api } from '../../../api/request.ts';

export type { SpiderScrapyRun, TaskScrapyStats };

/** Refreshes while the task runs (the log is read as it streams), once more when it ends. */
export function useTaskScrapyStats(taskId: string, enabled: boolean, running: boolean) {
  return useQuery({
    queryKey: ['tasks', 'scrapy-stats', taskId, running] as const,
    enabled: enabled && !!taskId,
    queryFn: async () => (await api.get<TaskScrapyStats>(`/tasks/${taskId}/scrapy-stats`)).data,
    refetchInterval: enabled && running ? 5_000 : false,
  });
}

export function useSpiderScrapyRuns(spiderId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['spiders', 'scrapy-runs', spiderId] as const,
    enabled: enabled && !!spiderId,
    queryFn: async () => (await api.get<SpiderScrapyRun[]>(`/spiders/${spiderId}/scrapy-runs`, { limit: 30 })).data,
    refetchInterval: enabled ? 30_000 : false,
  });
}

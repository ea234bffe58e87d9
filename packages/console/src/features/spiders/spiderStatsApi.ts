/** GET /spiders/{id}/stats for the Analytics tab; days are the browser's calendar days, as on the dashboard. */
import { useQuery } from '@tanstack/react-query';
import type { SpiderStats } from '@crawldeck/shared';
import { api } from '../../api/request.ts';

export function useSpiderStats(spiderId: string, days: number, enabled: boolean) {
  return useQuery({
    queryKey: ['spiders', 'stats', spiderId, days] as const,
    enabled: enabled && !!spiderId,
    queryFn: async () =>
      (await api.get<SpiderStats>(`/spiders/${spiderId}/stats`, { days, tz_offset: -new Date().getTimezoneOffset() }))
        .data,
    // Keep the previous window's numbers on screen while another window loads (same spider only).
    placeholderData: (prev, prevQuery) => (prevQuery?.queryKey[2] === spiderId ? prev : undefined),
    refetchInterval: enabled ? 30_000 : false,
  });
}

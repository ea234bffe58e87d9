import { useQuery } from '@tanstack/react-query';
import type { HomeStats } from '@crawldeck/shared';
import { api } from '../../api/request.ts';

/** GET /stats/home: one call for the whole dashboard; days are the browser's calendar days. */
export function useHomeStats() {
  return useQuery({
    queryKey: ['stats-home'],
    queryFn: async () => (await api.get<HomeStats>('/stats/home', { tz_offset: -new Date().getTimezoneOffset() })).data,
    refetchInterval: 30_000,
  });
}

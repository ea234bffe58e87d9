import {
  FINAL_TASK_STATUSES,
  SPIDER_STATS_DEFAULT_DAYS,
  lastDays,
  type SpiderStats,
  type SpiderStatsOverview,
} from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';
import { DAY_MS, dailyAggregates, statusAggregates } from './spider-stats.store.ts';

const ENDED = new Set<string>(FINAL_TASK_STATUSES);

/**
 * Overview over all of the spider's tasks and a zero-filled daily series of the last `days` calendar days (the
 * dashboard's day arithmetic: day n covers [n·DAY − offset, (n+1)·DAY − offset), UTC when tzOffsetMin is 0).
 */
export async function spiderStats(
  db: Kysely<DB>,
  spiderId: string,
  days = SPIDER_STATS_DEFAULT_DAYS,
  tzOffsetMin = 0,
  now = Date.now(),
): Promise<SpiderStats> {
  const offMs = tzOffsetMin * 60_000;
  const today = Math.floor((now + offMs) / DAY_MS);
  const firstDay = today - days + 1;
  const since = firstDay * DAY_MS - offMs;
  const until = (today + 1) * DAY_MS - offMs;

  const [byStatus, byDay] = await Promise.all([
    statusAggregates(db, spiderId),
    dailyAggregates(db, spiderId, since, until, offMs),
  ]);

  const count = (s: string) => byStatus.find((r) => r.status === s)?.n ?? 0;
  const ended = byStatus.filter((r) => ENDED.has(r.status));
  const endedN = ended.reduce((a, r) => a + r.n, 0);
  const runN = ended.reduce((a, r) => a + r.run_n, 0);
  const runSum = ended.reduce((a, r) => a + r.run_sum, 0);
  const lastStarts = byStatus.map((r) => r.last_start).filter((v): v is number => v != null);
  const overview: SpiderStatsOverview = {
    tasks: byStatus.reduce((a, r) => a + r.n, 0),
    finished: count('finished'),
    error: count('error'),
    cancelled: count('cancelled'),
    abnormal: count('abnormal'),
    running: count('running'),
    pending: count('pending'),
    success_rate: endedN ? count('finished') / endedN : 0,
    avg_duration_ms: runN ? Math.round(runSum / runN) : 0,
    results: byStatus.reduce((a, r) => a + r.results, 0),
    last_run_ts: lastStarts.length ? iso(Math.max(...lastStarts)) : null,
  };

  const dayMap = new Map(byDay.map((r) => [r.d, r]));
  const daily = lastDays(now, days, tzOffsetMin).map((date, i) => {
    const r = dayMap.get(firstDay + i);
    return {
      date,
      tasks: r?.n ?? 0,
      results: r?.results ?? 0,
      avg_duration_ms: r && r.run_n ? Math.round(r.run_sum / r.run_n) : 0,
      error: r?.errors ?? 0,
    };
  });
  return { overview, daily };
}

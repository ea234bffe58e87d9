import { Type, type Static } from '@sinclair/typebox';
import { Int } from './bounds.ts';

/** Spider Analytics tab (spec §2 Spider detail, §3 "Spider stats: overview and daily", §7 GET /spiders/{id}/stats). */
export const SPIDER_STATS_DEFAULT_DAYS = 30;
export const SPIDER_STATS_MAX_DAYS = 365;

export const SpiderStatsQuery = Type.Object({
  /** Length of the daily window in days, ending today (default 30, at most 365). */
  days: Type.Optional(Int(1, SPIDER_STATS_MAX_DAYS)),
  /**
   * Client's offset from UTC in minutes (e.g. 480 for UTC+8), as on the dashboard; days are UTC calendar days
   * when it is absent.
   */
  tz_offset: Type.Optional(Int(-840, 840)),
});
export type SpiderStatsQuery = Static<typeof SpiderStatsQuery>;

/** Over every task of the spider (all time, not only the daily window). */
export interface SpiderStatsOverview {
  tasks: number;
  finished: number;
  error: number;
  cancelled: number;
  abnormal: number;
  running: number;
  pending: number;
  /** finished / ended tasks (finished + error + cancelled + abnormal), 0..1; 0 when no task has ended. */
  success_rate: number;
  /** Mean runtime (finish_ts − start_ts) of ended tasks that started, rounded to ms; 0 when none. */
  avg_duration_ms: number;
  /** Sum of result_count. */
  results: number;
  /** ISO time of the latest task start, null when no task has started. */
  last_run_ts: string | null;
}

/** One calendar day; tasks are bucketed by their creation time. */
export interface SpiderStatsDay {
  /** YYYY-MM-DD in the requested offset (UTC by default). */
  date: string;
  tasks: number;
  results: number;
  /** Mean runtime of that day's ended tasks, rounded to ms; 0 when none. */
  avg_duration_ms: number;
  /** Tasks of that day with status error. */
  error: number;
}

export interface SpiderStats {
  overview: SpiderStatsOverview;
  /** Every day of the window, oldest first, zero-filled. */
  daily: SpiderStatsDay[];
}

import { Type, type Static } from '@sinclair/typebox';
import { Int } from './bounds.ts';
import { IsoTime } from './responses.ts';

/** Spider Analytics tab (GET /spiders/{id}/stats): an overview over all tasks and a daily series. */
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
export const SpiderStatsOverview = Type.Object({
  tasks: Type.Number(),
  finished: Type.Number(),
  error: Type.Number(),
  cancelled: Type.Number(),
  abnormal: Type.Number(),
  running: Type.Number(),
  pending: Type.Number(),
  /** finished / ended tasks (finished + error + cancelled + abnormal), 0..1; 0 when no task has ended. */
  success_rate: Type.Number(),
  /** Mean runtime (finish_ts − start_ts) of ended tasks that started, rounded to ms; 0 when none. */
  avg_duration_ms: Type.Number(),
  /** Sum of result_count. */
  results: Type.Number(),
  /** ISO time of the latest task start, null when no task has started. */
  last_run_ts: IsoTime,
});
export type SpiderStatsOverview = Static<typeof SpiderStatsOverview>;

/** One calendar day; tasks are bucketed by their creation time. */
export const SpiderStatsDay = Type.Object({
  /** YYYY-MM-DD in the requested offset (UTC by default). */
  date: Type.String(),
  tasks: Type.Number(),
  results: Type.Number(),
  /** Mean runtime of that day's ended tasks, rounded to ms; 0 when none. */
  avg_duration_ms: Type.Number(),
  /** Tasks of that day with status error. */
  error: Type.Number(),
});
export type SpiderStatsDay = Static<typeof SpiderStatsDay>;

export const SpiderStats = Type.Object({
  overview: SpiderStatsOverview,
  /** Every day of the window, oldest first, zero-filled. */
  daily: Type.Array(SpiderStatsDay),
});
export type SpiderStats = Static<typeof SpiderStats>;

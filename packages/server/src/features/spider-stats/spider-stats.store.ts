import { sql, type Kysely } from 'kysely';
import { FINAL_TASK_STATUSES } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';

/**
 * Aggregate queries of the spider Analytics tab. Both read only one spider's rows through an index on spider_id
 * (tasks_spider_idx, or tasks_spider_status_idx): the overview groups all of them by status, the daily series reads
 * the window's range of the first. Runtime is finish_ts − start_ts of tasks that have both.
 */
export const DAY_MS = 86400_000;

export interface StatusAgg {
  status: string;
  n: number;
  results: number;
  /** Sum and count of runtimes of rows of this status that have start_ts and finish_ts. */
  run_sum: number;
  run_n: number;
  last_start: number | null;
}

export interface DayAgg {
  /** Day number: floor((create_ts + offset) / DAY_MS). */
  d: number;
  n: number;
  results: number;
  errors: number;
  /** Sum and count of runtimes of that day's ended tasks. */
  run_sum: number;
  run_n: number;
}

const hasRuntime = sql`start_ts IS NOT NULL AND finish_ts IS NOT NULL`;

/** Per-status counts, result sums, runtime sums and latest start of one spider's tasks. */
export function statusAggregatesQuery(spiderId: string) {
  return sql<Record<keyof StatusAgg, unknown>>`
    SELECT status,
      COUNT(*) AS n,
      COALESCE(SUM(result_count), 0) AS results,
      COALESCE(SUM(CASE WHEN ${hasRuntime} THEN finish_ts - start_ts END), 0) AS run_sum,
      COUNT(CASE WHEN ${hasRuntime} THEN 1 END) AS run_n,
      MAX(start_ts) AS last_start
    FROM tasks WHERE spider_id = ${spiderId}
    GROUP BY status`;
}

export async function statusAggregates(db: Kysely<DB>, spiderId: string): Promise<StatusAgg[]> {
  const { rows } = await statusAggregatesQuery(spiderId).execute(db);
  return rows.map((r) => ({
    status: String(r.status),
    n: Number(r.n),
    results: Number(r.results),
    run_sum: Number(r.run_sum),
    run_n: Number(r.run_n),
    last_start: r.last_start == null ? null : Number(r.last_start),
  }));
}

/** Per-day aggregates of tasks created in [since, until); `offMs` shifts UTC to the wanted calendar. */
export function dailyAggregatesQuery(spiderId: string, since: number, until: number, offMs: number) {
  const ended = sql`status IN (${sql.join(FINAL_TASK_STATUSES.map((s) => sql.lit(s)))}) AND ${hasRuntime}`;
  // Literals, not parameters, in the bucket expression: SQLite binds JS numbers as REAL (no integer division)
  // and PostgreSQL must see the same expression in SELECT and GROUP BY.
  return sql<Record<keyof DayAgg, unknown>>`
    SELECT (create_ts + ${sql.lit(offMs)}) / ${sql.lit(DAY_MS)} AS d,
      COUNT(*) AS n,
      COALESCE(SUM(result_count), 0) AS results,
      SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END) AS errors,
      COALESCE(SUM(CASE WHEN ${ended} THEN finish_ts - start_ts END), 0) AS run_sum,
      COUNT(CASE WHEN ${ended} THEN 1 END) AS run_n
    FROM tasks
    WHERE spider_id = ${spiderId} AND create_ts >= ${sql.lit(since)} AND create_ts < ${sql.lit(until)}
    GROUP BY 1`;
}

export async function dailyAggregates(
  db: Kysely<DB>,
  spiderId: string,
  since: number,
  until: number,
  offMs: number,
): Promise<DayAgg[]> {
  const { rows } = await dailyAggregatesQuery(spiderId, since, until, offMs).execute(db);
  return rows.map((r) => ({
    d: Number(r.d),
    n: Number(r.n),
    results: Number(r.results),
    errors: Number(r.errors),
    run_sum: Number(r.run_sum),
    run_n: Number(r.run_n),
  }));
}

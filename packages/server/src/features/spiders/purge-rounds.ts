/**
 * How much of a deleted spider's data one round of its purge deletes. A round is sized in rows (a task counts one,
 * plus its log lines and items, which go with it): the size grows while rounds take well under their budget of
 * time and shrinks at once, in proportion, when a round took longer, so a round stays near its budget however fast
 * the store is and whatever else it does meanwhile. On SQLite a round's statement holds the master's only thread;
 * on PostgreSQL it holds the locks of the rows it deletes.
 */

/** Time one round of the purge may take on SQLite, where its statement holds the master's only thread. */
export const PURGE_ROUND_BUDGET_MS = 15;
/**
 * Time one round may take on PostgreSQL, where the master goes on meanwhile and the round holds only the locks of
 * the rows it deletes, which nobody reads any more.
 */
export const PURGE_ROUND_BUDGET_PG_MS = 50;
/** Rows of the first round, and never fewer. */
export const PURGE_ROUND_MIN_ROWS = 100;
/** Rows of one round at most, whatever the budget allows. */
export const PURGE_ROUND_MAX_ROWS = 20_000;
/** Tasks of one round at most (their ids are parameters of one statement). */
export const PURGE_ROUND_MAX_TASKS = 5_000;
/** How much a round may grow over the last one that stayed well under its budget. */
const GROWTH = 1.5;

/** The size of the next round, from the size of the last one and the time it took. */
export function nextRoundRows(lastRows: number, tookMs: number, budgetMs = PURGE_ROUND_BUDGET_MS): number {
  let next = lastRows;
  if (tookMs > budgetMs) next = Math.floor((lastRows * budgetMs) / tookMs);
  else if (tookMs <= budgetMs / 2) next = Math.ceil(lastRows * GROWTH);
  return Math.min(PURGE_ROUND_MAX_ROWS, Math.max(PURGE_ROUND_MIN_ROWS, next));
}

/** Share of its time the master's event loop may have been busy with other work for it to count as idle. */
export const IDLE_LOOP_SHARE = 0.05;
/** How much shorter than the round the rest after it is while the master is idle. */
const IDLE_REST_SHARE = 0.25;

/**
 * How long to rest after a round that took `tookMs`: as long as the round, so that other work gets at least as
 * much of the master as the purge, or a quarter of it while the master's event loop was idle (`busyShare`, the
 * share of the last rest it spent on other work, below IDLE_LOOP_SHARE): nobody is waiting then, and a request
 * that comes waits at most one round either way.
 */
export function restAfter(tookMs: number, busyShare: number): number {
  return busyShare < IDLE_LOOP_SHARE ? tookMs * IDLE_REST_SHARE : tookMs;
}

/** A task to purge with the size of its output: its log lines and items. */
export interface PurgeTask {
  id: string;
  log_lines: number;
  result_count: number;
}

/** The rows a task's deletion removes: the task, its lines and its items. */
export const purgeRows = (t: PurgeTask): number => 1 + Number(t.log_lines) + Number(t.result_count);

/**
 * The first tasks of `tasks` (in order) that fit in `rows`, at least one. A task whose output alone is more than a
 * round is taken alone, and its output goes in chunks of its own before its row.
 */
export function fitRound<T extends PurgeTask>(tasks: T[], rows: number): T[] {
  let used = 0;
  let n = 0;
  while (n < tasks.length && n < PURGE_ROUND_MAX_TASKS) {
    used += purgeRows(tasks[n]);
    if (used > rows && n > 0) break;
    n++;
  }
  return tasks.slice(0, n);
}

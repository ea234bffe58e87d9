import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** How many earlier finished runs of the spider tell what it usually stores. */
const EARLIER_RUNS = 10;

export function finishedTask(db: Kysely<DB>, taskId: string) {
  return db
    .selectFrom('tasks')
    .select(['id', 'spider_id', 'status', 'error_lines', 'result_count', 'create_ts', 'suspicious'])
    .where('id', '=', taskId)
    .executeTakeFirst();
}

/** Results of the spider's latest finished runs created before `beforeTs`. */
export async function earlierResults(
  db: Kysely<DB>,
  spiderId: string,
  taskId: string,
  beforeTs: number,
): Promise<number[]> {
  const rows = await earlierResultsQuery(db, spiderId, taskId, beforeTs).execute();
  return rows.map((r) => r.result_count);
}

/**
 * The statement of `earlierResults`: a walk back from `beforeTs` on the (spider_id, status) index, reading only
 * the runs it returns. The status index alone would walk every finished task of every spider back to the
 * spider's latest run (all of them for a spider that never finished one).
 */
export function earlierResultsQuery(db: Kysely<DB>, spiderId: string, taskId: string, beforeTs: number) {
  return db
    .selectFrom('tasks')
    .select('result_count')
    .where('spider_id', '=', spiderId)
    .where('status', '=', 'finished')
    .where('id', '!=', taskId)
    .where('create_ts', '<=', beforeTs)
    .orderBy('create_ts', 'desc')
    .limit(EARLIER_RUNS);
}

/** Records the suspicion once: false when another master (or an earlier event) recorded it already. */
export async function markSuspicious(db: Kysely<DB>, taskId: string, suspicion: string): Promise<boolean> {
  const r = await db
    .updateTable('tasks')
    .set({ suspicious: suspicion })
    .where('id', '=', taskId)
    .where('suspicious', '=', '')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

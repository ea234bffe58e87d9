import { sql, type Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { PurgeTask } from './purge-rounds.ts';

/** Where the purge of a spider has got to in the order of its (spider_id, status, create_ts, id) index. */
export interface PurgeKey {
  status: string;
  create_ts: number;
  id: string;
}

export type PurgeCandidate = PurgeTask & PurgeKey;

/**
 * The next `limit` tasks of a deleted spider after `after` (from its first when undefined), in the order of the
 * spider's (spider_id, status, create_ts, id) index, with the counters that tell how much output each holds. A
 * range of that index that starts past the rows already deleted: PostgreSQL keeps the index entries of deleted rows
 * until it vacuums them, and a read from the start of the spider would walk all of them again each round.
 */
export async function nextPurgeTasks(
  db: Kysely<DB>,
  spiderId: string,
  after: PurgeKey | undefined,
  limit: number,
): Promise<PurgeCandidate[]> {
  let q = db
    .selectFrom('tasks')
    .select(['id', 'status', 'create_ts', 'log_lines', 'result_count'])
    .where('spider_id', '=', spiderId);
  if (after) q = q.where(sql<boolean>`(status, create_ts, id) > (${after.status}, ${after.create_ts}, ${after.id})`);
  const rows = await q.orderBy('status').orderBy('create_ts').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ ...r, create_ts: Number(r.create_ts) }));
}

/**
 * Deletes these tasks of a deleted spider in one statement, by their ids only: with the spider's id as well, SQLite
 * walks the spider's whole index range instead of looking each id up. Their log lines and items go with them (the
 * store's cascade on SQLite; on PostgreSQL its trigger, two statements for all the tasks of the round), so the
 * caller bounds the rows by the tasks' counters.
 */
export async function deletePurgedTasks(db: Kysely<DB>, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db.deleteFrom('tasks').where('id', 'in', ids).execute();
}

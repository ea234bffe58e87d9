import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** Store reads behind the /metrics gauges: the store is the truth shared by every master. */

/** When the task waiting longest was created (null when none waits). */
export async function oldestPendingCreateTs(db: Kysely<DB>): Promise<number | null> {
  const r = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.min<number>('create_ts').as('ts'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return r?.ts == null ? null : Number(r.ts);
}

export function nodesForMetrics(db: Kysely<DB>) {
  return db.selectFrom('nodes').select(['id', 'name', 'status', 'running']).execute();
}

export async function taskWait(db: Kysely<DB>, taskId: string) {
  return db.selectFrom('tasks').select(['create_ts', 'start_ts']).where('id', '=', taskId).executeTakeFirst();
}

/** Schedule fires recorded after `sinceTs` by any master, oldest first (at most `limit`). */
export function firesSince(db: Kysely<DB>, sinceTs: number, limit: number) {
  return db
    .selectFrom('schedule_fires')
    .select(['fire_ts', 'create_ts', 'kind', 'error'])
    .where('create_ts', '>', sinceTs)
    .orderBy('create_ts')
    .limit(limit)
    .execute();
}

/** Webhook delivery attempts recorded after `sinceTs`, oldest first (at most `limit`). */
export function deliveriesSince(db: Kysely<DB>, sinceTs: number, limit: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['create_ts', 'ok', 'event'])
    .where('create_ts', '>', sinceTs)
    .orderBy('create_ts')
    .limit(limit)
    .execute();
}

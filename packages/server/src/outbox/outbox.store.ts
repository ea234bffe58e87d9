import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { DB } from '../store/schema.ts';

/** The outbox: every stored delivery waiting for its next attempt, of every kind (webhooks, notifications). */
export type OutboxRow = Selectable<DB['outbox']>;
export type OutboxKind = OutboxRow['kind'];
export type NewOutboxRow = Pick<OutboxRow, 'id' | 'target_id' | 'event' | 'body'>;

/** Stores new deliveries of one kind, their first attempt due now. */
export async function addToOutbox(db: Kysely<DB>, kind: OutboxKind, rows: NewOutboxRow[], now: number): Promise<void> {
  await db
    .insertInto('outbox')
    .values(rows.map((r) => ({ ...r, kind, attempt: 1, due_ts: now, lease_ts: null, create_ts: now })))
    .execute();
}

const unleased = (now: number) => (eb: ExpressionBuilder<DB, 'outbox'>) =>
  eb.or([eb('lease_ts', 'is', null), eb('lease_ts', '<', now)]);

/** Ids of up to `limit` deliveries of a kind due at `now` that no master holds. */
export async function dueOutboxIds(db: Kysely<DB>, kind: OutboxKind, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('outbox')
    .select('id')
    .where('kind', '=', kind)
    .where('due_ts', '<=', now)
    .where(unleased(now))
    .orderBy('due_ts')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Takes a due delivery for `leaseMs` with one conditional write: true for exactly one master. */
export async function leaseOutboxRow(db: Kysely<DB>, id: string, now: number, leaseMs: number): Promise<boolean> {
  const res = await db
    .updateTable('outbox')
    .set({ lease_ts: now + leaseMs })
    .where('id', '=', id)
    .where('due_ts', '<=', now)
    .where(unleased(now))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** When the next delivery of a kind falls due or its lease ends; undefined when there is none. */
export async function nextOutboxTime(db: Kysely<DB>, kind: OutboxKind): Promise<number | undefined> {
  const next = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.min<number>(eb.fn.coalesce('lease_ts', 'due_ts')).as('ts'))
    .where('kind', '=', kind)
    .executeTakeFirst();
  return next?.ts == null ? undefined : Number(next.ts);
}

export function findOutboxRow(db: Kysely<DB>, id: string): Promise<OutboxRow | undefined> {
  return db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function removeFromOutbox(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('outbox').where('id', '=', id).execute();
}

/** Frees a delivery for any master; with `retry`, its next attempt falls due at `retry.due`. */
export async function releaseOutboxRow(
  db: Kysely<DB>,
  id: string,
  retry?: { attempt: number; due: number },
): Promise<void> {
  const patch = retry ? { attempt: retry.attempt, due_ts: retry.due, lease_ts: null } : { lease_ts: null };
  await db.updateTable('outbox').set(patch).where('id', '=', id).execute();
}

/** Deliveries of a kind waiting for an attempt. */
export async function outboxDepth(db: Kysely<DB>, kind: OutboxKind): Promise<number> {
  const r = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('kind', '=', kind)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

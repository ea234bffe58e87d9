import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { pageWithTotal } from '../../store/query-helpers.ts';

/** Webhooks, the log of their delivery attempts and the outbox of deliveries waiting for an attempt. */
export type WebhookRow = Selectable<DB['webhooks']>;
export type DeliveryRow = Selectable<DB['webhook_deliveries']>;
export type OutboxRow = Selectable<DB['webhook_outbox']>;
type Page = { limit: number; offset: number };

// ---- webhooks ----

export function findWebhook(db: Kysely<DB>, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every webhook, newest first. */
export function listWebhooks(db: Kysely<DB>): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().orderBy('create_ts', 'desc').execute();
}

export function listEnabledWebhooks(db: Kysely<DB>): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('enabled', '=', 1).execute();
}

export async function insertWebhook(db: Kysely<DB>, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(db: Kysely<DB>, id: string, patch: Partial<WebhookRow>): Promise<void> {
  await db.updateTable('webhooks').set(patch).where('id', '=', id).execute();
}

/** Deletes a webhook with its delivery log. */
export async function deleteWebhook(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

// ---- delivery log ----

/** One page of a webhook's delivery attempts, newest first, and how many there are. */
export function listDeliveriesPage(db: Kysely<DB>, webhookId: string, page: Page) {
  const query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('create_ts', 'desc')
    .orderBy('id', 'desc');
  return pageWithTotal(query, page);
}

/** Logs one attempt and records its outcome on the webhook. */
export async function logDeliveryAttempt(db: Kysely<DB>, row: DeliveryRow): Promise<void> {
  // The webhook may have been deleted meanwhile (foreign key): then there is nothing to log.
  await db
    .insertInto('webhook_deliveries')
    .values(row)
    .execute()
    .catch(() => undefined);
  await db
    .updateTable('webhooks')
    .set({ last_status: row.ok ? 'success' : 'failed', last_delivery_ts: row.create_ts })
    .where('id', '=', row.webhook_id)
    .execute();
}

// ---- what an event's template may use ----

/** The task of a task event with its spider's and node's names. */
export function findTaskForEvent(db: Kysely<DB>, taskId: string) {
  return db
    .selectFrom('tasks')
    .leftJoin('spiders', 'spiders.id', 'tasks.spider_id')
    .leftJoin('nodes', 'nodes.id', 'tasks.node_id')
    .select([
      'tasks.id',
      'tasks.status',
      'tasks.error',
      'tasks.spider_id',
      'tasks.node_id',
      'tasks.schedule_id',
      'tasks.parent_id',
      'tasks.param',
      'tasks.result_count',
      'tasks.create_ts',
      'tasks.start_ts',
      'tasks.finish_ts',
      'spiders.name as spider_name',
      'nodes.name as node_name',
      'nodes.status as node_status',
    ])
    .where('tasks.id', '=', taskId)
    .executeTakeFirst();
}

export function findNodeForEvent(db: Kysely<DB>, nodeId: string) {
  return db.selectFrom('nodes').select(['id', 'name', 'status', 'ip']).where('id', '=', nodeId).executeTakeFirst();
}

// ---- outbox ----

/** Stores new deliveries, their first attempt due now. */
export async function addToOutbox(
  db: Kysely<DB>,
  rows: Pick<OutboxRow, 'id' | 'webhook_id' | 'event' | 'body'>[],
  now: number,
): Promise<void> {
  await db
    .insertInto('webhook_outbox')
    .values(rows.map((r) => ({ ...r, attempt: 1, due_ts: now, lease_ts: null, create_ts: now })))
    .execute();
}

const unleased = (now: number) => (eb: ExpressionBuilder<DB, 'webhook_outbox'>) =>
  eb.or([eb('lease_ts', 'is', null), eb('lease_ts', '<', now)]);

/** Ids of up to `limit` deliveries due at `now` that no master holds. */
export async function dueOutboxIds(db: Kysely<DB>, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_outbox')
    .select('id')
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
    .updateTable('webhook_outbox')
    .set({ lease_ts: now + leaseMs })
    .where('id', '=', id)
    .where('due_ts', '<=', now)
    .where(unleased(now))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** When the next delivery falls due or its lease ends; undefined when the outbox is empty. */
export async function nextOutboxTime(db: Kysely<DB>): Promise<number | undefined> {
  const next = await db
    .selectFrom('webhook_outbox')
    .select((eb) => eb.fn.min<number>(eb.fn.coalesce('lease_ts', 'due_ts')).as('ts'))
    .executeTakeFirst();
  return next?.ts == null ? undefined : Number(next.ts);
}

export function findOutboxRow(db: Kysely<DB>, id: string): Promise<OutboxRow | undefined> {
  return db.selectFrom('webhook_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function removeFromOutbox(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('webhook_outbox').where('id', '=', id).execute();
}

/** Frees a delivery for any master; with `retry`, its next attempt falls due at `retry.due`. */
export async function releaseOutboxRow(
  db: Kysely<DB>,
  id: string,
  retry?: { attempt: number; due: number },
): Promise<void> {
  const patch = retry ? { attempt: retry.attempt, due_ts: retry.due, lease_ts: null } : { lease_ts: null };
  await db.updateTable('webhook_outbox').set(patch).where('id', '=', id).execute();
}

import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { pageWithTotal } from '../../store/query-helpers.ts';

/** Webhooks and the log of their delivery attempts (deliveries waiting for an attempt are in the outbox). */
export type WebhookRow = Selectable<DB['webhooks']>;
export type DeliveryRow = Selectable<DB['webhook_deliveries']>;
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

/** Deletes a webhook with its delivery log and its deliveries waiting in the outbox. */
export async function deleteWebhook(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('outbox').where('kind', '=', 'webhook').where('target_id', '=', id).execute();
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

import type { EngineMigration } from '../migrate.ts';

/**
 * Schedules, their fire bookkeeping, task retries and notification webhooks.
 *
 * `schedules.spider_id` deliberately has NO foreign key to `spiders`: 'Not Found Spider' is a schedule status the
 * console shows, which only exists if a schedule outlives its spider (the operator sees why it stopped and can
 * re-point or delete it instead of it vanishing silently). It also keeps this migration independent of the order
 * in which feature migrations arrive.
 */
export const m2026112205_schedules: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('schedules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('cron', 'text', (c) => c.notNull())
      .addColumn('spider_id', 'text', (c) => c.notNull())
      .addColumn('run_type', 'text', (c) => c.notNull().defaultTo('random'))
      .addColumn('node_ids', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('param', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('stop'))
      .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('timezone', 'text', (c) => c.notNull())
      .addColumn('next_run_ts', t.ts)
      .addColumn('last_run_ts', t.ts)
      /** Fires at or before this time are never caught up (set on create/enable/edit). */
      .addColumn('active_since_ts', t.ts, (c) => c.notNull())
      .addColumn('owner_id', 'text')
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('schedules_spider_idx').on('schedules').column('spider_id').execute();
    await db.schema
      .createTable('schedule_fires')
      .addColumn('schedule_id', 'text', (c) => c.notNull())
      .addColumn('fire_ts', t.ts, (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull().defaultTo('cron'))
      .addColumn('task_ids', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('master', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addPrimaryKeyConstraint('schedule_fires_pk', ['schedule_id', 'fire_ts'])
      .execute();
    // One retry per failed task, whichever master sees the status change first.
    await db.schema
      .createTable('task_retries')
      .addColumn('task_id', 'text', (c) => c.primaryKey())
      .addColumn('root_id', 'text', (c) => c.notNull())
      .addColumn('retry_task_id', 'text')
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('task_retries_root_idx').on('task_retries').column('root_id').execute();
    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('spider_ids', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('secret', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('template', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('last_status', 'text')
      .addColumn('last_delivery_ts', t.ts)
      .addColumn('owner_id', 'text')
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('ok', 'integer', (c) => c.notNull())
      .addColumn('http_status', 'integer')
      .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('duration_ms', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('request_body', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('response_body', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_hook_idx')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'create_ts'])
      .execute();
  },
};

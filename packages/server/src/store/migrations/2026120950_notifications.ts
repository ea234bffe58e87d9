import type { EngineMigration } from '../migrate.ts';

/**
 * Notifications: channels (where a message goes: e-mail, chat apps, a generic webhook), rules (which condition,
 * for which projects, spiders or tags, to which channels), the claims that keep a rule from sending twice for the
 * same subject within its window, and the alert history (one row per message to one channel, with the answer).
 *
 * The webhook outbox becomes the one outbox of every stored delivery: a row names its kind (`webhook` or
 * `notification`) and its target (the webhook, or the alert), so notifications are retried by the same code.
 */
export const m2026120950_notifications: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('notify_channels')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('lang', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull()) // JSON of the fields shown back
      .addColumn('secrets_enc', 'text', (c) => c.notNull()) // encrypted JSON of the write-only fields
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('notify_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('threshold', 'real')
      .addColumn('stop_task', 'integer', (c) => c.notNull())
      .addColumn('project_ids', 'text', (c) => c.notNull())
      .addColumn('spider_ids', 'text', (c) => c.notNull())
      .addColumn('tags', 'text', (c) => c.notNull())
      .addColumn('channel_ids', 'text', (c) => c.notNull())
      .addColumn('quiet_start', 'text', (c) => c.notNull())
      .addColumn('quiet_end', 'text', (c) => c.notNull())
      .addColumn('dedupe_minutes', 'integer', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('notify_claims')
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('fire_ts', t.ts, (c) => c.notNull())
      .addPrimaryKeyConstraint('notify_claims_pk', ['rule_id', 'subject'])
      .execute();
    await db.schema
      .createTable('notify_alerts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('firing_id', 'text', (c) => c.notNull()) // the alerts of one firing share it
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('rule_name', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('channel_id', 'text', (c) => c.notNull())
      .addColumn('channel_name', 'text', (c) => c.notNull())
      .addColumn('channel_kind', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('link', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull()) // pending | delivered | failed | quiet
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('answer_status', 'integer')
      .addColumn('answer', 'text', (c) => c.notNull())
      .addColumn('error', 'text', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('notify_alerts_create_idx').on('notify_alerts').columns(['create_ts', 'id']).execute();

    await db.schema
      .createTable('outbox')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('due_ts', t.ts, (c) => c.notNull())
      .addColumn('lease_ts', t.ts)
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('outbox_kind_due_idx').on('outbox').columns(['kind', 'due_ts']).execute();
    await db
      .insertInto('outbox')
      .columns(['id', 'kind', 'target_id', 'event', 'body', 'attempt', 'due_ts', 'lease_ts', 'create_ts'])
      .expression((eb) =>
        eb
          .selectFrom('webhook_outbox')
          .select([
            'id',
            eb.val('webhook').as('kind'),
            'webhook_id',
            'event',
            'body',
            'attempt',
            'due_ts',
            'lease_ts',
            'create_ts',
          ]),
      )
      .execute();
    await db.schema.dropTable('webhook_outbox').execute();
  },
};

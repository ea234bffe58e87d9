import type { EngineMigration } from '../migrate.ts';

/**
 * Webhook deliveries waiting for their next attempt live in the store, so retries survive a master restart and
 * masters sharing one PostgreSQL database each take a delivery only after claiming it (a lease that expires if the
 * master dies mid-attempt). `nodes.offline_ts` records when a node was last declared offline (null while it is
 * alive), so the offline transition is recorded, and announced, once.
 */
export const m2026112220_webhook_outbox: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('webhook_outbox')
      .addColumn('id', 'text', (c) => c.primaryKey()) // the delivery id the receiver sees
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull()) // number of the next attempt, from 1
      .addColumn('due_ts', t.ts, (c) => c.notNull())
      .addColumn('lease_ts', t.ts) // claimed by a master until then; null when free
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_outbox_due_idx').on('webhook_outbox').column('due_ts').execute();
    await db.schema.alterTable('nodes').addColumn('offline_ts', t.ts).execute();
  },
};

import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Retries with backoff. A spider says how long its first retry waits (each further one waits twice as long) and
 * which endings are retried (`error`, `abnormal`, `timed_out`, comma separated). A task knows its attempt (1 for
 * a first run), the retries its own run asked for (null follows its schedule or spider), and the time before
 * which dispatch does not start it (null: at once).
 *
 * The waiting retries with a time are few (a failed task makes at most one); `tasks_not_before_idx` holds only
 * those still pending and unclaimed, so the job that wakes dispatch when one falls due reads just them.
 */
export const m2026121020_retry_backoff: EngineMigration = {
  async up(db, t) {
    await db.schema
      .alterTable('spiders')
      .addColumn('retry_delay_seconds', 'integer', (c) => c.notNull().defaultTo(10))
      .execute();
    await db.schema
      .alterTable('spiders')
      .addColumn('retry_on', 'text', (c) => c.notNull().defaultTo('error,abnormal'))
      .execute();
    await db.schema
      .alterTable('tasks')
      .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema.alterTable('tasks').addColumn('retries', 'integer').execute();
    await db.schema.alterTable('tasks').addColumn('not_before', t.ts).execute();
    await db.schema
      .createIndex('tasks_not_before_idx')
      .on('tasks')
      .column('not_before')
      .where(sql.ref('status'), '=', 'pending')
      .where(sql.ref('assign_ts'), 'is', null)
      .where(sql.ref('not_before'), 'is not', null)
      .execute();
  },
};

import type { EngineMigration } from '../migrate.ts';

/**
 * Results data sources. `data_sources` holds the administrator's PostgreSQL and MySQL/MariaDB connections (the
 * password encrypted with the master's secret key). `spider_targets` says where a spider's items go (no row: the
 * built-in store). `task_targets` records, when a task is created, where its items go, so changing a spider's data
 * source moves later tasks only; it also holds the last write error the task shows while the target is down.
 */
export const m2026112230_datasources: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('data_sources')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('port', 'integer', (c) => c.notNull())
      .addColumn('database', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('password_enc', 'text', (c) => c.notNull())
      .addColumn('schema', 'text', (c) => c.notNull())
      .addColumn('tls', 'text', (c) => c.notNull()) // JSON {enabled, verify, ca}
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('spider_targets')
      .addColumn('spider_id', 'text', (c) => c.primaryKey().references('spiders.id').onDelete('cascade'))
      .addColumn('data_source_id', 'text', (c) => c.notNull().references('data_sources.id'))
      .addColumn('table_name', 'text', (c) => c.notNull()) // '' = derived from the results collection
      .execute();
    await db.schema
      .createTable('task_targets')
      // No foreign key: its check would lock the new task's row while dispatch claims pending tasks with SKIP LOCKED,
      // so a claim could pass the task by. Rows of deleted tasks are removed when the deletion is announced.
      .addColumn('task_id', 'text', (c) => c.primaryKey())
      .addColumn('data_source_id', 'text', (c) => c.notNull()) // '' = the built-in store; kept after a delete
      .addColumn('table_name', 'text', (c) => c.notNull())
      .addColumn('error', 'text', (c) => c.notNull())
      .addColumn('error_ts', t.ts)
      .execute();
  },
};

import type { EngineMigration } from '../migrate.ts';

/**
 * Node environments: install jobs are stored rows (a node claims them, so a restart of either side loses none),
 * each node's last report of its languages and packages, languages administrators add, and what belongs on
 * every node.
 */
export const m2026112301_environments: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('env_jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('node_id', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('log', 'text', (c) => c.notNull())
      .addColumn('error', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('start_ts', t.ts)
      .addColumn('finish_ts', t.ts)
      .execute();
    await db.schema
      .createIndex('env_jobs_node_status_idx')
      .on('env_jobs')
      .columns(['node_id', 'status', 'create_ts'])
      .execute();
    await db.schema
      .createTable('env_inventory')
      .addColumn('node_id', 'text', (c) => c.primaryKey())
      .addColumn('package_manager', 'text', (c) => c.notNull())
      .addColumn('languages', 'text', (c) => c.notNull())
      .addColumn('pip', 'text', (c) => c.notNull())
      .addColumn('npm', 'text', (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('env_languages')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('env_everywhere')
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addPrimaryKeyConstraint('env_everywhere_pk', ['target', 'name'])
      .execute();
  },
};

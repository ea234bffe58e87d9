import type { EngineMigration } from '../migrate.ts';

/**
 * Git sync state per spider: the last synced commit (also the base for keeping console edits to files
 * the remote did not change), the branch list, when the last sync ran and its error. The spider's own columns
 * (git_url, git_branch, credentials, git_auto_sync) belong to the spiders migration.
 */
export const m2026112207_git: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('git_state')
      .addColumn('spider_id', 'text', (c) => c.primaryKey())
      .addColumn('remote', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('branch', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('branches', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('commit_info', 'text')
      .addColumn('base_commit', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('sync_ts', t.ts)
      .addColumn('attempt_ts', t.ts)
      .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};

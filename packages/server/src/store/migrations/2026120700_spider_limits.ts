import type { EngineMigration } from '../migrate.ts';

/**
 * A spider's own resource limits for its tasks (memory in MiB, CPU in percent of one core, processes at once), as a
 * JSON object; a limit of 0 or absent takes the master's default for every task.
 */
export const m2026120700_spider_limits: EngineMigration = {
  async up(db) {
    await db.schema
      .alterTable('spiders')
      .addColumn('limits', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
  },
};

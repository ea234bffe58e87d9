import type { EngineMigration } from '../migrate.ts';

/**
 * A run's own maximum run time in seconds (0: none), chosen when it was started; null follows its spider's
 * `timeout_seconds` (held with the spider's other limits).
 */
export const m2026120811_task_timeout: EngineMigration = {
  async up(db) {
    await db.schema.alterTable('tasks').addColumn('timeout_seconds', 'integer').execute();
  },
};

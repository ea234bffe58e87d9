import type { EngineMigration } from '../migrate.ts';

/**
 * Tasks by the data source that holds their results: deleting a data source counts the tasks whose results would
 * become unreadable, one range of this index.
 */
export const m2026120831_task_targets_source: EngineMigration = {
  async up(db) {
    await db.schema.createIndex('task_targets_source_idx').on('task_targets').column('data_source_id').execute();
  },
};

import type { EngineMigration } from '../migrate.ts';

/**
 * One spider's tasks in one status, newest first: the spider's earlier finished runs a finished task is compared
 * with (suspicious results), whether a spider has a pending or running task (before it may be deleted) and the
 * task list filtered by spider and status. Without it these read either all of the spider's tasks or all tasks in
 * that status: for a spider with no finished run yet, every finished task of the store at each finished task.
 */
export const m2026112720_tasks_spider_status: EngineMigration = {
  async up(db) {
    await db.schema
      .createIndex('tasks_spider_status_idx')
      .on('tasks')
      .columns(['spider_id', 'status', 'create_ts', 'id'])
      .execute();
  },
};

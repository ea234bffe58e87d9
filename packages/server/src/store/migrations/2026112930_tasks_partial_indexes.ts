import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Two task indexes hold only the tasks their readers ask for, so the other tasks' writes skip them:
 * - `tasks_node_idx` (node_id, status): its one reader asks which tasks a node holds, pending or running. It now
 *   holds those tasks only: a task enters it when created and leaves it when it ends, so on a store of millions of
 *   finished tasks it stays as small as the work in flight instead of growing with the history. Its readers state the
 *   same `status IN ('pending', 'running')` (SQLite uses a partial index only for a query that repeats its condition).
 * - `tasks_schedule_idx` (schedule_id, create_ts, id): read only for one schedule's tasks, so a task run by hand (no
 *   schedule) has no entry in it.
 * The other task indexes serve reads of every status and every task (the lists by spider, node, owner, status and
 * date) and stay as they were.
 */
export const m2026112930_tasks_partial_indexes: EngineMigration = {
  async up(db) {
    await db.schema.dropIndex('tasks_node_idx').execute();
    await db.schema
      .createIndex('tasks_node_idx')
      .on('tasks')
      .columns(['node_id', 'status'])
      .where(sql.ref('status'), 'in', ['pending', 'running'])
      .execute();
    await db.schema.dropIndex('tasks_schedule_idx').execute();
    await db.schema
      .createIndex('tasks_schedule_idx')
      .on('tasks')
      .columns(['schedule_id', 'create_ts', 'id'])
      .where(sql.ref('schedule_id'), 'is not', null)
      .execute();
  },
};

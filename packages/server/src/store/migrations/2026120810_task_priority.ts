import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Queue priority (1 highest … 5 lowest, 3 by default) on tasks and on schedules, whose fires pass theirs to the
 * tasks they make. Dispatch reads the waiting tasks of a node (or of any node) by priority, then age: the waiting
 * index gains the priority between the node and the age, so that read stays one walk of a partial index holding
 * only the unclaimed pending tasks, however many tasks wait at the other priorities.
 */
export const m2026120810_task_priority: EngineMigration = {
  async up(db) {
    await db.schema
      .alterTable('tasks')
      .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(3))
      .execute();
    await db.schema
      .alterTable('schedules')
      .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(3))
      .execute();
    await db.schema.dropIndex('tasks_waiting_idx').execute();
    await db.schema
      .createIndex('tasks_waiting_idx')
      .on('tasks')
      .columns(['node_id', 'priority', 'create_ts', 'id'])
      .where(sql.ref('status'), '=', 'pending')
      .where(sql.ref('assign_ts'), 'is', null)
      .execute();
  },
};

import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Concurrency limits and skipped fires. A spider and a project each say how many of their tasks may hold a node's
 * slot at once (0: no limit); the rest wait in the queue. A schedule may skip a fire while its previous run still
 * goes, and the fire records why it made no task.
 *
 * The tasks holding a slot (claimed by a node or running) are counted per spider at every claim under a limit:
 * `tasks_slot_idx (spider_id, status)` holds only those tasks, so the count reads the spider's work in flight, never its waiting tasks
 * or its history.
 *
 * Dispatch reads the waiting tasks in the queue's order for every free node at once: `tasks_queue_idx` holds the
 * unclaimed pending tasks in that order (priority, age, id) whatever node they wait for, so one walk of its head,
 * passing over the tasks of busy nodes, reads a round, however long the queue.
 */
export const m2026120920_queue_limits: EngineMigration = {
  async up(db) {
    for (const table of ['spiders', 'projects'] as const)
      await db.schema
        .alterTable(table)
        .addColumn('max_running', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    await db.schema
      .alterTable('schedules')
      .addColumn('skip_if_running', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('schedule_fires')
      .addColumn('skipped', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .createIndex('tasks_slot_idx')
      .on('tasks')
      // With the status, SQLite (no statistics) takes it over `tasks_spider_status_idx`, which holds every task.
      .columns(['spider_id', 'status'])
      .where(sql.ref('status'), 'in', [sql.lit('pending'), sql.lit('running')])
      .where(sql.ref('assign_ts'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('tasks_queue_idx')
      .on('tasks')
      // The status leads although the index holds one: SQLite (which plans without statistics) then takes it over
      // `tasks_status_idx` for `status = 'pending' ORDER BY priority, create_ts, id`, as it reads in that order.
      .columns(['status', 'priority', 'create_ts', 'id'])
      .where(sql.ref('status'), '=', 'pending')
      .where(sql.ref('assign_ts'), 'is', null)
      .execute();
  },
};

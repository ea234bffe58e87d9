import type { EngineMigration } from '../migrate.ts';

/**
 * Indexes that end on the task list's full sort key (create_ts, id): a page of tasks, newest first, is a range walk
 * from a cursor on any of them, with or without a filter on spider, schedule, status, node or owner. The owner index
 * serves a normal user's list (own tasks, next to the tasks of spiders they may read). The indexes they replace
 * stopped at create_ts, which left ties in one timestamp to a sort of the whole range.
 */
const ORDERED: Array<[name: string, lead: string | null, replaces: string | null]> = [
  ['tasks_order_idx', null, 'tasks_create_idx'],
  ['tasks_spider_idx', 'spider_id', 'tasks_spider_idx'],
  ['tasks_schedule_idx', 'schedule_id', 'tasks_schedule_idx'],
  ['tasks_status_idx', 'status', 'tasks_status_idx'],
  ['tasks_owner_idx', 'owner_id', null],
  ['tasks_node_order_idx', 'node_id', null],
];

export const m2026112410_list_keys: EngineMigration = {
  async up(db) {
    for (const [name, lead, replaces] of ORDERED) {
      if (replaces) await db.schema.dropIndex(replaces).execute();
      const columns = lead ? [lead, 'create_ts', 'id'] : ['create_ts', 'id'];
      await db.schema.createIndex(name).on('tasks').columns(columns).execute();
    }
  },
};

import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { cappedCount, keysetPage, offsetPage, type Keyset, type ListOrder, type PageWindow } from '../../store/page.ts';

/** Items in the order they were stored: the id is the item sequence. */
const ITEM_ORDER: ListOrder = { columns: ['id'], desc: false };
const itemKey = (r: { id: number }) => [Number(r.id)];

const taskItems = (db: Kysely<DB>, taskId: string) =>
  db.selectFrom('results').select(['id', 'data']).where('task_id', '=', taskId);

/** Items of a task in the built-in store (`results`, one JSON document per row), after an id, in id order. */
export function builtinResultsPage(db: Kysely<DB>, taskId: string, page: { limit: number; afterId?: number }) {
  let q = taskItems(db, taskId);
  if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
  return q.orderBy('task_id').orderBy('id').limit(page.limit).execute();
}

/** One page of a task's items by cursor or page number, with the cursors of the pages around it. */
export function builtinResultsList(db: Kysely<DB>, taskId: string, at: { cursor: Keyset } | PageWindow, limit: number) {
  const q = taskItems(db, taskId);
  return 'cursor' in at
    ? keysetPage(q, ITEM_ORDER, at.cursor, limit, itemKey)
    : offsetPage(q, ITEM_ORDER, { limit, offset: at.offset }, itemKey);
}

/**
 * Every item of a task in id order from one server-side cursor (PostgreSQL), `chunk` rows per fetch: one plan
 * and one index walk for the whole export instead of a statement per page.
 */
export function builtinResultsStream(db: Kysely<DB>, taskId: string, chunk: number) {
  return taskItems(db, taskId).orderBy('task_id').orderBy('id').stream(chunk);
}

/** How many items a task has, counted up to `cap`. */
export function builtinResultsCount(db: Kysely<DB>, taskId: string, cap: number) {
  return cappedCount(db, taskItems(db, taskId), cap);
}

import { StringDecoder } from 'node:string_decoder';
import type { Kysely } from 'kysely';
import type { Store } from '../../store/db.ts';
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

/** The escapes of COPY's text format: a backslash before the letter of a control character or before itself. */
const COPY_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const copyField = (field: string) =>
  field.includes('\\') ? field.replace(/\\(.)/g, (_, c: string) => COPY_ESCAPES[c] ?? c) : field;

/**
 * Every item of a task in id order as PostgreSQL's COPY writes them (one statement, no row-by-row protocol), in
 * pages of at least `size` rows, each read only when the caller asks for it.
 */
export async function* builtinResultsCopy(
  copyOut: NonNullable<Store['copyOut']>,
  taskId: string,
  size: number,
): AsyncGenerator<Array<{ id: number; data: string }>> {
  const literal = `'${taskId.replaceAll("'", "''")}'`;
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let page: Array<{ id: number; data: string }> = [];
  for await (const chunk of copyOut(
    `COPY (SELECT id, data FROM results WHERE task_id = ${literal} ORDER BY id) TO STDOUT`,
  )) {
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const tab = line.indexOf('\t');
      page.push({ id: Number(line.slice(0, tab)), data: copyField(line.slice(tab + 1)) });
    }
    if (page.length < size) continue;
    yield page;
    page = [];
  }
  if (page.length) yield page;
}

/** How many items a task has, counted up to `cap`. */
export function builtinResultsCount(db: Kysely<DB>, taskId: string, cap: number) {
  return cappedCount(db, taskItems(db, taskId), cap);
}

import { sql, type Kysely } from 'kysely';
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

/**
 * COPY's CSV format with a delimiter and a quote that a stored item cannot hold (JSON admits no raw control
 * character): each row is the item's JSON document as stored and a line break, nothing escaped. Only a document
 * with a raw line break or carriage return in it (JSON whitespace) comes quoted by QUOTE.
 */
const DOC_QUOTE = '\x1e';
const DOC_COPY_FORMAT = "(FORMAT csv, DELIMITER e'\\x1f', QUOTE e'\\x1e')";
/** Bytes of documents gathered into one block of the export before it is handed on. */
const DOC_BLOCK_BYTES = 256 * 1024;

/**
 * The whole rows at the start of `text` (`docs`, joined by commas) and what is left of an unfinished row (`rest`).
 * A row quoted by DOC_QUOTE ends at its closing quote: the quote itself never occurs inside a document.
 */
export function cutDocRows(text: string): { docs: string; rest: string } {
  if (!text.includes(DOC_QUOTE)) {
    const end = text.lastIndexOf('\n');
    return end < 0
      ? { docs: '', rest: text }
      : { docs: text.slice(0, end).replaceAll('\n', ','), rest: text.slice(end + 1) };
  }
  const docs: string[] = [];
  let at = 0;
  for (;;) {
    const quoted = text.startsWith(DOC_QUOTE, at);
    const close = quoted ? text.indexOf(DOC_QUOTE, at + 1) : at;
    const end = close < 0 ? -1 : text.indexOf('\n', close);
    if (end < 0) return { docs: docs.join(','), rest: text.slice(at) };
    docs.push(quoted ? text.slice(at + 1, close) : text.slice(at, end));
    at = end + 1;
  }
}

/**
 * Every item of a task in id order as PostgreSQL's COPY writes them (one statement, no row-by-row protocol), in
 * blocks of whole JSON documents joined by commas (the inside of a JSON array), each block read only when the
 * caller asks for it. The bytes are gathered and cut at a line break before they are decoded: a line break is
 * never inside a UTF-8 character, and one decoding per block costs less than one per network read.
 */
export async function* builtinResultsCopy(
  copyOut: NonNullable<Store['copyOut']>,
  taskId: string,
): AsyncGenerator<string> {
  const literal = `'${taskId.replaceAll("'", "''")}'`;
  let chunks: Buffer[] = [];
  let bytes = 0;
  let rest = '';
  for await (const chunk of copyOut(
    `COPY (SELECT data FROM results WHERE task_id = ${literal} ORDER BY id) TO STDOUT ${DOC_COPY_FORMAT}`,
  )) {
    chunks.push(chunk);
    bytes += chunk.length;
    if (bytes < DOC_BLOCK_BYTES) continue;
    const buf = Buffer.concat(chunks, bytes);
    const end = buf.lastIndexOf(0x0a) + 1;
    chunks = end < buf.length ? [buf.subarray(end)] : [];
    bytes = buf.length - end;
    const cut = cutDocRows(rest + buf.toString('utf8', 0, end));
    rest = cut.rest;
    if (cut.docs) yield cut.docs;
  }
  const cut = cutDocRows(rest + Buffer.concat(chunks, bytes).toString('utf8'));
  if (cut.docs) yield cut.docs;
  if (cut.rest) throw new Error('the COPY of the items ended inside a row');
}

/**
 * Up to `limit` items of a task after an id, in id order, as one block of JSON documents joined by commas (the
 * engine joins them: no row object per item), with the last item's id to go on from.
 */
export async function builtinResultsDocPage(db: Kysely<DB>, taskId: string, afterId: number, limit: number) {
  const page = db
    .selectFrom('results')
    .select(['id', 'data'])
    .where('task_id', '=', taskId)
    .where('id', '>', afterId)
    .orderBy('task_id')
    .orderBy('id')
    .limit(limit)
    .as('page');
  const row = await db
    .selectFrom(page)
    .select([
      sql<string | null>`string_agg(data, ',' ORDER BY id)`.as('docs'),
      sql<number | null>`max(id)`.as('last'),
      sql<number>`count(*)`.as('count'),
    ])
    .executeTakeFirstOrThrow();
  return { docs: row.docs ?? '', last: Number(row.last ?? afterId), count: Number(row.count) };
}

/** How many items a task has, counted up to `cap`. */
export function builtinResultsCount(db: Kysely<DB>, taskId: string, cap: number) {
  return cappedCount(db, taskItems(db, taskId), cap);
}

import { setImmediate } from 'node:timers/promises';
import type { AppContext } from '../../context.ts';
import { HttpError } from '../../http/errors.ts';
import type { ColumnKind } from '../datasources/columns.ts';
import { driverMessage } from '../datasources/datasources.service.ts';
import { recordTaskTarget } from '../datasources/ingest.service.ts';
import type { StoredRow, TargetWriter } from '../datasources/target.ts';
import { writerCache } from '../datasources/writers.ts';
import { badRequest } from '../../http/errors.ts';
import type { Keyset, KeysetPage, PageWindow } from '../../store/page.ts';
import {
  builtinResultsCopy,
  builtinResultsCount,
  builtinResultsDocPage,
  builtinResultsList,
  builtinResultsPage,
} from './results.store.ts';

/** What an item holds (without _id and task_id). */
export type ItemFields = Record<string, unknown>;

/** An item as stored: its id and fields. */
export interface ResultItem {
  id: number;
  fields: ItemFields;
}

/** A task's items wherever they went: the built-in store or the data source the task recorded. */
export interface ResultsReader {
  /** How many items, counted up to `cap` where the store can (`capped` then says there are more). */
  total(cap: number): Promise<{ total: number; capped: boolean }>;
  /** Whether `list` also pages backward (`prev`, `last`); a data source's table is read forward only. */
  backward: boolean;
  /** One page in id order, by cursor or page number, with the cursors of the pages around it. */
  list(at: { cursor: Keyset } | PageWindow, limit: number): Promise<KeysetPage<ResultItem>>;
  /** Columns of a download: the keys of the first items (built-in store) or the table's item columns. */
  columns(): Promise<string[]>;
  /** Every item's fields in id order, a block at a time: the next block is read only when asked for. */
  pages(size: number): AsyncGenerator<ItemFields[]>;
}

const HEAD_ROWS = 100;
/**
 * Exports streaming from a PostgreSQL COPY at once: each holds a pooled connection while its client downloads,
 * so beyond these the next exports read page by page (short statements) and leave the pool to the API.
 */
const MAX_STREAMED_EXPORTS = 3;
let streamedExports = 0;

type StoredItem = { id: number | string; data: string };
const parse = (r: StoredItem): ResultItem => ({
  id: Number(r.id),
  fields: JSON.parse(r.data) as Record<string, unknown>,
});

/** A block of documents joined by commas, read as one JSON array: one parse for the block, not one per item. */
const parseBlock = (docs: string): ItemFields[] => (docs ? (JSON.parse(`[${docs}]`) as ItemFields[]) : []);

/**
 * Items by keyset pages: one short statement per page, each an index range from the last id. Between two pages the
 * master's other requests get their turn: on SQLite every read runs on the master's only thread, and a client that
 * takes the download as fast as it is written (loopback, no compression) would otherwise keep the export's pages
 * coming back to back, every other request waiting for the whole export.
 */
async function* keysetPages(ctx: AppContext, taskId: string, size: number): AsyncGenerator<ItemFields[]> {
  let afterId = 0;
  for (;;) {
    const page = await builtinResultsDocPage(ctx.store.db, taskId, afterId, size);
    if (page.count) yield parseBlock(page.docs);
    if (page.count < size) return;
    afterId = page.last;
    await setImmediate();
  }
}

/** Items from one PostgreSQL COPY; the COPY is read on only when the download asks for more. */
async function* copyPages(ctx: AppContext, taskId: string): AsyncGenerator<ItemFields[]> {
  streamedExports++;
  try {
    for await (const docs of builtinResultsCopy(ctx.store.copyOut!, taskId)) yield parseBlock(docs);
  } finally {
    streamedExports--;
  }
}

function builtinReader(ctx: AppContext, taskId: string): ResultsReader {
  const db = ctx.store.db;
  return {
    backward: true,
    total: (cap) => builtinResultsCount(db, taskId, cap),
    async list(at, limit) {
      const page = await builtinResultsList(db, taskId, at, limit);
      return { ...page, rows: page.rows.map(parse) };
    },
    async columns() {
      const columns: string[] = [];
      for (const r of await builtinResultsPage(db, taskId, { limit: HEAD_ROWS }))
        for (const k of Object.keys(parse(r).fields)) if (!columns.includes(k)) columns.push(k);
      return columns;
    },
    pages(size) {
      const stream = !!ctx.store.copyOut && streamedExports < MAX_STREAMED_EXPORTS;
      return stream ? copyPages(ctx, taskId) : keysetPages(ctx, taskId, size);
    },
  };
}

/** A read the data source refused: 503 with the driver's message (the console shows it), never a 500. */
async function unavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(503, `the data source of this task's results cannot be read: ${driverMessage(err)}`);
  }
}

function tableReader(writer: TargetWriter, table: string, taskId: string): ResultsReader {
  // Undefined while the table does not exist (no item arrived yet).
  let known: Map<string, ColumnKind> | undefined;
  const columns = async () => (known ??= await unavailable(() => writer.columns(table)));
  const item = (r: StoredRow): ResultItem => ({
    id: r.id,
    fields: Object.fromEntries(Object.entries(r.fields).filter(([, v]) => v !== null && v !== undefined)),
  });
  return {
    backward: false,
    async total() {
      const total = (await columns()) ? await unavailable(() => writer.countTask(table, taskId)) : 0;
      return { total, capped: false };
    },
    // A data source's table is read forward only: by page number or after the last item of a page.
    async list(at, limit) {
      const cursor = 'cursor' in at ? at.cursor : undefined;
      if (cursor && cursor.dir !== 'after')
        throw badRequest('the results of this task live in a data source: page forward with `next` or page_num');
      const cols = await columns();
      const from = cursor ? { afterId: Number(cursor.key[0]) } : { offset: 'offset' in at ? at.offset : 0 };
      const got = cols ? await unavailable(() => writer.rows(table, cols, taskId, { limit: limit + 1, ...from })) : [];
      const rows = got.slice(0, limit).map(item);
      const next: Keyset | null = got.length > limit ? { dir: 'after', key: [rows[rows.length - 1].id] } : null;
      return { rows, next, prev: null };
    },
    async columns() {
      return [...((await columns())?.keys() ?? [])];
    },
    async *pages(size) {
      const cols = await columns();
      if (!cols) return;
      let afterId = 0;
      for (;;) {
        const rows = (await unavailable(() => writer.rows(table, cols, taskId, { limit: size, afterId }))).map(item);
        if (rows.length) yield rows.map((r) => r.fields);
        if (rows.length < size) return;
        afterId = rows[rows.length - 1].id;
      }
    },
  };
}

/** The reader of a task's items; 503 with the driver's message when its data source cannot be reached. */
export async function resultsReader(ctx: AppContext, taskId: string): Promise<ResultsReader> {
  const target = await recordTaskTarget(ctx, taskId);
  if (!target?.data_source_id) return builtinReader(ctx, taskId);
  try {
    const open = await writerCache(ctx).get(target.data_source_id);
    return tableReader(open.writer, target.table_name, taskId);
  } catch (err) {
    if (err instanceof HttpError)
      throw new HttpError(409, `the data source of this task's results was deleted: ${err.message}`);
    throw new HttpError(503, `the data source of this task's results cannot be read: ${driverMessage(err)}`);
  }
}

import type { AppContext } from '../../context.ts';
import { HttpError } from '../../http/errors.ts';
import type { ColumnKind } from '../datasources/columns.ts';
import { driverMessage } from '../datasources/datasources.service.ts';
import { recordTaskTarget } from '../datasources/ingest.service.ts';
import type { StoredRow, TargetWriter } from '../datasources/target.ts';
import { writerCache } from '../datasources/writers.ts';
import { builtinResultsCount, builtinResultsPage } from './results.store.ts';

/** An item as stored: its id and fields (without _id and task_id). */
export interface ResultItem {
  id: number;
  fields: Record<string, unknown>;
}

/** A task's items wherever they went: the built-in store or the data source the task recorded. */
export interface ResultsReader {
  total(): Promise<number>;
  page(limit: number, offset: number): Promise<ResultItem[]>;
  /** Columns of a download: the keys of the first items (built-in store) or the table's item columns. */
  columns(): Promise<string[]>;
  /** Every item in id order, one page at a time: the next page is read only when asked for. */
  pages(size: number): AsyncGenerator<ResultItem[]>;
}

const HEAD_ROWS = 100;

function builtinReader(ctx: AppContext, taskId: string): ResultsReader {
  const db = ctx.store.db;
  const parse = (r: { id: number; data: string }): ResultItem => ({
    id: Number(r.id),
    fields: JSON.parse(r.data) as Record<string, unknown>,
  });
  return {
    total: () => builtinResultsCount(db, taskId),
    page: async (limit, offset) => (await builtinResultsPage(db, taskId, { limit, offset })).map(parse),
    async columns() {
      const columns: string[] = [];
      for (const r of await builtinResultsPage(db, taskId, { limit: HEAD_ROWS }))
        for (const k of Object.keys(parse(r).fields)) if (!columns.includes(k)) columns.push(k);
      return columns;
    },
    async *pages(size) {
      let afterId = 0;
      for (;;) {
        const rows = (await builtinResultsPage(db, taskId, { limit: size, afterId })).map(parse);
        if (rows.length) yield rows;
        if (rows.length < size) return;
        afterId = rows[rows.length - 1].id;
      }
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
    async total() {
      return (await columns()) ? unavailable(() => writer.countTask(table, taskId)) : 0;
    },
    async page(limit, offset) {
      const cols = await columns();
      return cols ? (await unavailable(() => writer.rows(table, cols, taskId, { limit, offset }))).map(item) : [];
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
        if (rows.length) yield rows;
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

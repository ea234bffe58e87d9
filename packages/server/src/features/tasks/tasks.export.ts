import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { resultsAfter } from './tasks.store.ts';

const ROWS_PER_CHUNK = 5000;
/** The columns are the keys of the first items, in order of appearance. */
const ROWS_FOR_COLUMNS = 100;

const cell = (v: unknown) =>
  v === null || v === undefined
    ? ''
    : typeof v === 'object'
      ? JSON.stringify(v)
      : typeof v === 'boolean'
        ? String(v)
        : v;

async function columnsOf(db: Kysely<DB>, taskId: string): Promise<string[]> {
  const columns: string[] = [];
  for (const r of await resultsAfter(db, taskId, 0, ROWS_FOR_COLUMNS)) {
    for (const k of Object.keys(JSON.parse(r.data))) if (!columns.includes(k)) columns.push(k);
  }
  return columns;
}

/**
 * A task's items as a CSV stream, optionally starting with a byte-order mark (for spreadsheet programs). One page
 * of rows makes one chunk, and the next page is read only when the socket drained the last.
 */
export async function resultsCsv(db: Kysely<DB>, taskId: string, bom: boolean): Promise<Readable> {
  const columns = await columnsOf(db, taskId);
  async function* chunks(): AsyncGenerator<string> {
    let first = (bom ? '\ufeff' : '') + (columns.length ? stringify([columns]) : '');
    let last = 0;
    for (;;) {
      const page = await resultsAfter(db, taskId, last, ROWS_PER_CHUNK);
      if (page.length) {
        const records = page.map((r) => {
          const o = JSON.parse(r.data) as Record<string, unknown>;
          return columns.map((c) => cell(o[c]));
        });
        yield first + stringify(records);
        first = '';
        last = Number(page[page.length - 1].id);
      }
      if (page.length < ROWS_PER_CHUNK) break;
    }
    if (first) yield first;
  }
  return Readable.from(chunks());
}

/**
 * SQLite: a batch of a task's items written into the built-in store (`results`) inside the ingest's transaction.
 * The rows go as parameters of multi-row INSERTs of a few fixed sizes, so each statement text is prepared once
 * and kept by the connection: no JSON array of the batch for SQLite to read again, no row object handed back per
 * item (how many were stored is the statement's count of changed rows).
 */
import { CompiledQuery, type Transaction } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** What a spider does with an item whose key is stored already: nothing to compare (no key), keep the first, or replace it. */
export type ItemConflict = 'none' | 'ignore' | 'overwrite';

/** The rows of a batch as parallel lists: each item's JSON document and, when keyed, the key it is deduplicated by. */
export interface ItemColumns {
  docs: readonly string[];
  /** Absent when the spider does not deduplicate (every key null). */
  keys?: readonly (string | null)[];
}

/** Most rows one statement takes; a batch's last rows go in statements of 256, 128, … 1 rows. */
const ROWS_PER_STATEMENT = 512;

const ON_CONFLICT: Record<ItemConflict, string> = {
  none: '',
  ignore: 'ON CONFLICT (collection, dedup_key) DO NOTHING',
  overwrite:
    'ON CONFLICT (collection, dedup_key) DO UPDATE SET data = excluded.data, task_id = excluded.task_id, create_ts = excluded.create_ts',
};

const texts = new Map<string, string>();

/**
 * The INSERT of `count` rows: the collection, task, spider and time once, then one value (the document) or two
 * (key, document) a row. Rows get their ids in the order they are listed. `WHERE true` lets SQLite read the
 * upsert's ON CONFLICT after a SELECT.
 */
function insertText(count: number, keyed: boolean, conflict: ItemConflict): string {
  const name = `${count}:${keyed}:${conflict}`;
  let text = texts.get(name);
  if (!text) {
    const row = keyed ? '(?,?)' : '(?)';
    const [key, doc] = keyed ? ['column1', 'column2'] : ['NULL', 'column1'];
    text =
      `INSERT INTO results (collection, task_id, spider_id, dedup_key, data, create_ts) ` +
      `SELECT ?, ?, ?, ${key}, ${doc}, ? FROM (VALUES ${Array(count).fill(row).join(',')}) WHERE true ${ON_CONFLICT[conflict]}`;
    texts.set(name, text);
  }
  return text;
}

/** How many rows the next statement takes when `left` remain: the most, or the largest power of two that fits. */
function nextCount(left: number): number {
  if (left >= ROWS_PER_STATEMENT) return ROWS_PER_STATEMENT;
  let n = 1;
  while (n * 2 <= left) n *= 2;
  return n;
}

/**
 * Writes the rows in their order; returns how many were stored (with `ignore`, a row whose key is stored already
 * is not; with `overwrite`, it replaces the stored one and counts).
 */
export async function insertItemsSqlite(
  trx: Transaction<DB>,
  target: { collection: string; taskId: string; spiderId: string; createTs: number },
  rows: ItemColumns,
  conflict: ItemConflict,
): Promise<number> {
  const { docs, keys } = rows;
  let stored = 0;
  for (let at = 0; at < docs.length;) {
    const count = nextCount(docs.length - at);
    const params: unknown[] = [target.collection, target.taskId, target.spiderId, target.createTs];
    for (let i = at; i < at + count; i++) {
      if (keys) params.push(keys[i]);
      params.push(docs[i]);
    }
    const res = await trx.executeQuery(CompiledQuery.raw(insertText(count, !!keys, conflict), params));
    stored += Number(res.numAffectedRows ?? 0);
    at += count;
  }
  return stored;
}

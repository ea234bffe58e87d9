/**
 * Exactly-once ingest on PostgreSQL, the rows sent with COPY: one transaction locks the task row, skips what is
 * stored already, refuses a gap, copies the new rows in and advances the offset, as on SQLite. COPY takes the rows
 * as one stream of text: no statement to plan per batch, no array parameter to build and take apart again. A batch
 * costs four round trips to the database (begin and lock, the COPY's two, advance and commit): on a busy machine
 * each one waits for the database process to be scheduled.
 */
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { ShipBatch } from '@crawldeck/shared';
import type { Store } from '../../store/db.ts';
import {
  itemRows,
  itemsToStore,
  logRows,
  logsToStore,
  type DedupConfig,
  type ItemRow,
  type LogRows,
} from './ingest-rows.ts';

type PgTransaction = NonNullable<Store['pgTransaction']>;

/** What COPY's text format escapes in a field: the backslash itself, and the tab and newlines it splits rows by. */
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_ALL = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text field as COPY's text format reads it back unchanged. */
export function copyField(value: string): string {
  return COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]) : value;
}

/** Sends `chunks` (rows in COPY's text format) through `COPY … FROM STDIN`; resolves once PostgreSQL has them all. */
async function copyIn(client: pg.ClientBase, statement: string, ...chunks: Buffer[]): Promise<void> {
  const stream = client.query(copyFrom(statement));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await finished(stream);
}

/**
 * Rows as one buffer of UTF-8: one string of the whole batch made at once and encoded once (text of ASCII only,
 * a log's usual text, is the same bytes in Latin-1, which is a plain copy). It lies outside the JavaScript heap,
 * so a batch that waits for its turn holds one block, not thousands of small strings the garbage collector would
 * move to its old generation.
 */
function copyBuffer(count: number, row: (i: number) => string): Buffer {
  const rows = new Array<string>(count);
  for (let i = 0; i < count; i++) rows[i] = row(i);
  const text = rows.join('');
  return Buffer.from(text, Buffer.byteLength(text, 'utf8') === text.length ? 'latin1' : 'utf8');
}

interface LockedTask {
  spider_id: string;
  log_lines: number;
  error_lines: number;
  item_offset: number;
  result_count: number;
}

/**
 * Begins the transaction and locks the task row in one round trip; with `lastLine`, also reads the stored line
 * the task's log ends with, in a statement of its own after the lock, so a batch stored just before is seen.
 * Several statements in one query cannot take parameters: the id goes in as an escaped literal.
 */
async function beginLocked(client: pg.ClientBase, taskId: string, lastLine: boolean) {
  const id = client.escapeLiteral(taskId);
  const lock = `SELECT spider_id, log_lines, error_lines, item_offset, result_count FROM tasks WHERE id = ${id} FOR UPDATE`;
  const last = `SELECT msg FROM task_logs WHERE task_id = ${id} AND line_no = (SELECT log_lines FROM tasks WHERE id = ${id})`;
  const results = (await client.query(`BEGIN; ${lock}${lastLine ? `; ${last}` : ''}`)) as unknown as pg.QueryResult[];
  const task = results[1].rows[0] as LockedTask | undefined;
  const before = lastLine ? ((results[2].rows[0] as { msg: string } | undefined)?.msg ?? '') : '';
  return { id, task, before };
}

/** COPY text of the log rows from index `start` on. */
function logCopyText(id: string, rows: LogRows, start = 0, end = rows.msgs.length): Buffer {
  const lead = id + '\t';
  return copyBuffer(end - start, (k) => {
    const i = start + k;
    return lead + (rows.first + i) + '\t' + copyField(rows.msgs[i]) + (rows.flags[i] ? '\t1\n' : '\t0\n');
  });
}

/** Batches made ready (by the request that holds them; a batch tried again is not made ready twice). */
const readied = new WeakMap<ShipBatch, { rows: LogRows; tail: Buffer }>();

/**
 * A batch's log lines made ready before its task is locked, as if they follow the stored ones directly (the
 * usual case): the lines, their flags and the COPY text of all but the first, whose flag depends on the line
 * stored before it. Batches of one task are stored one after the other; this work overlaps the one before.
 */
function earlyLogs(taskId: string, batch: ShipBatch) {
  let early = readied.get(batch);
  if (!early) {
    const rows = logRows(batch.lines, batch.from + 1, '');
    early = { rows, tail: logCopyText(copyField(taskId), rows, 1) };
    readied.set(batch, early);
  }
  return early;
}

/** Makes a batch of log lines ready to store while it may still wait for its turn (see earlyLogs). */
export function readyLogsPg(taskId: string, batch: ShipBatch): void {
  if (batch.lines.length) earlyLogs(taskId, batch);
}

/** Stores log lines `from…` of a task exactly once (see ingestLogs); `rows` undefined when nothing was new. */
export function ingestLogsPg(
  tx: PgTransaction,
  taskId: string,
  batch: ShipBatch,
): Promise<{ acked: number; rows?: LogRows } | undefined> {
  const early = batch.lines.length ? earlyLogs(taskId, batch) : undefined;
  return tx(async (client) => {
    const { id, task: t, before } = await beginLocked(client, taskId, true);
    if (!t) return undefined;
    const stored = t.log_lines;
    const rows = logsToStore(batch, stored, before, early?.rows);
    if (!rows) return { acked: stored };
    const field = copyField(taskId);
    const text =
      rows.msgs === early?.rows.msgs ? [logCopyText(field, rows, 0, 1), early.tail] : [logCopyText(field, rows)];
    await copyIn(client, 'COPY task_logs (task_id, line_no, msg, is_error) FROM STDIN', ...text);
    const [lines, errors] = [stored + rows.msgs.length, t.error_lines + rows.errors];
    await client.query(`UPDATE tasks SET log_lines = ${lines}, error_lines = ${errors} WHERE id = ${id}; COMMIT`);
    return { acked: lines, rows };
  });
}

/** Stores the item rows through COPY; ids follow the order of the rows (the order the spider printed them in). */
async function copyItems(client: pg.ClientBase, taskId: string, spiderId: string, dedup: DedupConfig, rows: ItemRow[]) {
  const head = `${copyField(dedup.collection)}\t${copyField(taskId)}\t${copyField(spiderId)}\t\\N\t`;
  const now = Date.now();
  const text = copyBuffer(rows.length, (i) => `${head}${copyField(rows[i].data)}\t${now}\n`);
  await copyIn(client, 'COPY results (collection, task_id, spider_id, dedup_key, data, create_ts) FROM STDIN', text);
  return rows.length;
}

/** Stores the item rows with one INSERT … ON CONFLICT: the store's unique (collection, dedup_key) decides against items stored before, which COPY cannot. */
async function insertDedupItems(
  client: pg.ClientBase,
  taskId: string,
  spiderId: string,
  dedup: DedupConfig,
  rows: ItemRow[],
) {
  const onConflict =
    dedup.method === 'overwrite'
      ? 'DO UPDATE SET data = excluded.data, task_id = excluded.task_id, create_ts = excluded.create_ts'
      : 'DO NOTHING';
  const r = await client.query(
    `INSERT INTO results (collection, task_id, spider_id, dedup_key, data, create_ts)
     SELECT $1, $2, $3, x.k, x.d, $4::bigint
     FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS x(k, d, ord)
     ORDER BY x.ord ON CONFLICT (collection, dedup_key) ${onConflict}`,
    [dedup.collection, taskId, spiderId, Date.now(), rows.map((r) => r.dedup_key), rows.map((r) => r.data)],
  );
  return r.rowCount ?? 0;
}

const readiedItems = new WeakMap<ShipBatch, ReturnType<typeof itemRows>>();

/** Stores items `from…` exactly once (see ingestItems): COPY, or one INSERT … ON CONFLICT when deduplicating. */
export function ingestItemsPg(
  tx: PgTransaction,
  taskId: string,
  batch: ShipBatch,
  dedup: DedupConfig,
): Promise<{ acked: number; stored: number; skipped: number } | undefined> {
  // Parsed before the task is locked, as if the batch follows the stored items (see earlyLogs), once per batch.
  const early = readiedItems.get(batch) ?? itemRows(batch.lines, dedup);
  readiedItems.set(batch, early);
  return tx(async (client) => {
    const { id, task: t } = await beginLocked(client, taskId, false);
    if (!t) return undefined;
    const offset = t.item_offset;
    const todo = itemsToStore(batch, offset, dedup, early);
    if (!todo) return { acked: offset, stored: 0, skipped: 0 };
    const { rows, skipped } = todo;
    let stored = 0;
    if (rows.length && dedup.isDedup && dedup.field)
      stored = await insertDedupItems(client, taskId, t.spider_id, dedup, rows);
    else if (rows.length) stored = await copyItems(client, taskId, t.spider_id, dedup, rows);
    const [acked, count] = [offset + todo.lines, t.result_count + stored];
    await client.query(`UPDATE tasks SET item_offset = ${acked}, result_count = ${count} WHERE id = ${id}; COMMIT`);
    return { acked, stored, skipped: skipped + rows.length - stored };
  });
}

/**
 * Exactly-once ingest of a task's log lines and result rows: the task row holds how many of each are stored (its
 * offsets); a batch is stored in one transaction that locks the task, skips what is stored already, refuses a gap
 * and advances the offset. PostgreSQL sends the rows with COPY (ingest-pg.store.ts); SQLite takes log lines here,
 * as one JSON parameter read by one statement, and items as multi-row INSERTs (results-insert.store.ts).
 */
import type { ShipBatch } from '@crawldeck/shared';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { Store } from '../../store/db.ts';
import type { LogEvent } from '../../events.ts';
import { insertItemsSqlite } from '../results/results-insert.store.ts';
import { ingestItemsPg, ingestLogsPg, readyLogsPg } from './ingest-pg.store.ts';
import { itemsToStore, logEvent, logsToStore, unstoredPart, type DedupConfig, type LogRows } from './ingest-rows.ts';

export { MAX_LINE_CHARS, type DedupConfig } from './ingest-rows.ts';

async function lockTask(trx: Transaction<DB>, id: string) {
  return trx
    .selectFrom('tasks')
    .select(['id', 'spider_id', 'log_lines', 'error_lines', 'item_offset', 'result_count'])
    .where('id', '=', id)
    .executeTakeFirst();
}

async function lastStoredLine(trx: Transaction<DB>, taskId: string, lineNo: number): Promise<string> {
  if (lineNo < 1) return '';
  const row = await trx
    .selectFrom('task_logs')
    .select('msg')
    .where('task_id', '=', taskId)
    .where('line_no', '=', lineNo)
    .executeTakeFirst();
  return row?.msg ?? '';
}

/** SQLite: the transaction begins immediate, so it holds the write lock (the task's lock) from its start. */
function ingestLogsSqlite(store: Store, taskId: string, batch: ShipBatch) {
  return store.db.transaction().execute(async (trx): Promise<{ acked: number; rows?: LogRows } | undefined> => {
    const t = await lockTask(trx, taskId);
    if (!t) return undefined;
    const stored = t.log_lines;
    // The line before is read only when there is something to store.
    if (!unstoredPart(batch, stored).length) return { acked: stored };
    const rows = logsToStore(batch, stored, await lastStoredLine(trx, taskId, stored))!;
    const json = JSON.stringify(rows.msgs.map((m, i) => [m, rows.flags[i] ? 1 : 0]));
    await sql`INSERT INTO task_logs (task_id, line_no, msg, is_error)
      SELECT ${taskId}, ${stored} + key + 1, json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${json})`.execute(
      trx,
    );
    await trx
      .updateTable('tasks')
      .set({ log_lines: stored + rows.msgs.length, error_lines: t.error_lines + rows.errors })
      .where('id', '=', taskId)
      .execute();
    return { acked: stored + rows.msgs.length, rows };
  });
}

/**
 * Makes a batch of log lines ready to store while it may still wait for its turn behind the batch before it
 * (PostgreSQL: its rows and their COPY text); SQLite stores a batch within one turn of the event loop anyway.
 */
export function readyLogs(store: Store, taskId: string, batch: ShipBatch): void {
  if (store.pgTransaction) readyLogsPg(taskId, batch);
}

/**
 * Stores log lines `from…` of a task exactly once: the task row holds how many lines are stored, lines below
 * it are skipped, a gap is refused. Returns the new acknowledged offset (undefined when the task is gone) and,
 * when lines were stored, the event announcing them.
 */
export async function ingestLogs(
  store: Store,
  taskId: string,
  batch: ShipBatch,
): Promise<{ acked: number; event?: LogEvent } | undefined> {
  const r = store.pgTransaction
    ? await ingestLogsPg(store.pgTransaction, taskId, batch)
    : await ingestLogsSqlite(store, taskId, batch);
  if (!r) return undefined;
  return r.rows ? { acked: r.acked, event: logEvent(taskId, r.rows) } : { acked: r.acked };
}

function ingestItemsSqlite(store: Store, taskId: string, batch: ShipBatch, dedup: DedupConfig) {
  return store.db.transaction().execute(async (trx) => {
    const t = await lockTask(trx, taskId);
    if (!t) return undefined;
    const offset = t.item_offset;
    const todo = itemsToStore(batch, offset, dedup);
    if (!todo) return { acked: offset, stored: 0, skipped: 0 };
    const { rows, skipped } = todo;
    const keyed = dedup.isDedup && !!dedup.field;
    const stored = await insertItemsSqlite(
      trx,
      { collection: dedup.collection, taskId, spiderId: t.spider_id, createTs: Date.now() },
      { docs: rows.map((r) => r.data), keys: keyed ? rows.map((r) => r.dedup_key) : undefined },
      keyed ? dedup.method : 'none',
    );
    await trx
      .updateTable('tasks')
      .set({ item_offset: offset + todo.lines, result_count: t.result_count + stored })
      .where('id', '=', taskId)
      .execute();
    return { acked: offset + todo.lines, stored, skipped: skipped + rows.length - stored };
  });
}

/** Stores items `from…` exactly once (same offset rule as logs), deduplicating by field when asked. */
export function ingestItems(
  store: Store,
  taskId: string,
  batch: ShipBatch,
  dedup: DedupConfig,
): Promise<{ acked: number; stored: number; skipped: number } | undefined> {
  return store.pgTransaction
    ? ingestItemsPg(store.pgTransaction, taskId, batch, dedup)
    : ingestItemsSqlite(store, taskId, batch, dedup);
}

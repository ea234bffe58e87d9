/**
 * Exactly-once ingest of a task's log lines and result rows: the task row holds how many of each are stored (its
 * offsets); a batch is stored in one transaction that locks the task, skips what is stored already, refuses a gap
 * and advances the offset.
 */
import { flagErrorLines, type ShipBatch } from '@crawldeck/shared';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { Engine } from '../../store/db.ts';
import type { LogEvent } from '../../events.ts';

/** Longest stored log line: the node cuts at 64 KiB (+ marker); this guards the store against any other client. */
export const MAX_LINE_CHARS = 64 * 1024 + 1024;

async function lockTask(trx: Transaction<DB>, engine: Engine, id: string) {
  let q = trx
    .selectFrom('tasks')
    .select(['id', 'spider_id', 'log_lines', 'error_lines', 'item_offset', 'result_count'])
    .where('id', '=', id);
  if (engine === 'postgres') q = q.forUpdate();
  return q.executeTakeFirst();
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

/**
 * Stores log lines `from…` of a task exactly once: the task row holds how many lines are stored, lines below
 * it are skipped, a gap is refused. Returns the new acknowledged offset (undefined when the task is gone).
 */
export async function ingestLogs(
  db: Kysely<DB>,
  engine: Engine,
  taskId: string,
  batch: ShipBatch,
): Promise<{ acked: number; event?: LogEvent } | undefined> {
  return db.transaction().execute(async (trx) => {
    const t = await lockTask(trx, engine, taskId);
    if (!t) return undefined;
    const stored = t.log_lines;
    if (batch.from > stored) return { acked: stored };
    const fresh = batch.lines.slice(stored - batch.from);
    if (!fresh.length) return { acked: stored };
    const msgs = fresh.map((printed) => {
      // Spider output is untrusted: a NUL byte, which PostgreSQL text cannot hold, is shown as U+FFFD.
      const raw = printed.replaceAll('\u0000', '\uFFFD');
      return raw.length > MAX_LINE_CHARS ? raw.slice(0, MAX_LINE_CHARS) + ` … [line cut: ${raw.length} chars]` : raw;
    });
    // A traceback's last line is known by the line before it, which may have come in the previous batch.
    const flags = flagErrorLines(msgs, await lastStoredLine(trx, taskId, stored));
    const rows = msgs.map((msg, i) => ({ task_id: taskId, line_no: stored + i + 1, msg, is_error: flags[i] ? 1 : 0 }));
    // One statement with the lines as one array parameter: no per-row parameters to bind or SQL to compile.
    if (engine === 'postgres') {
      await sql`INSERT INTO task_logs (task_id, line_no, msg, is_error)
        SELECT ${taskId}, ${stored}::int + x.ord::int, x.m, x.f FROM unnest(${rows.map((r) => r.msg)}::text[], ${rows.map((r) => r.is_error)}::int[]) WITH ORDINALITY AS x(m, f, ord)`.execute(
        trx,
      );
    } else {
      await sql`INSERT INTO task_logs (task_id, line_no, msg, is_error)
        SELECT ${taskId}, ${stored} + key + 1, json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${JSON.stringify(rows.map((r) => [r.msg, r.is_error]))})`.execute(
        trx,
      );
    }
    const errors = rows.reduce((n, r) => n + r.is_error, 0);
    await trx
      .updateTable('tasks')
      .set({ log_lines: stored + rows.length, error_lines: t.error_lines + errors })
      .where('id', '=', taskId)
      .execute();
    return {
      acked: stored + rows.length,
      event: { taskId, lines: rows.map((r) => ({ line_no: r.line_no, msg: r.msg, is_error: r.is_error === 1 })) },
    };
  });
}

export interface DedupConfig {
  collection: string;
  isDedup: boolean;
  field: string;
  method: 'ignore' | 'overwrite';
}

/** Stores items `from…` exactly once (same offset rule as logs), deduplicating by field when asked. */
export async function ingestItems(
  db: Kysely<DB>,
  engine: Engine,
  taskId: string,
  batch: ShipBatch,
  dedup: DedupConfig,
): Promise<{ acked: number; stored: number; skipped: number } | undefined> {
  return db.transaction().execute(async (trx) => {
    const t = await lockTask(trx, engine, taskId);
    if (!t) return undefined;
    const offset = t.item_offset;
    if (batch.from > offset) return { acked: offset, stored: 0, skipped: 0 };
    const fresh = batch.lines.slice(offset - batch.from);
    if (!fresh.length) return { acked: offset, stored: 0, skipped: 0 };
    const now = Date.now();
    let skipped = 0;
    type Row = Omit<Selectable<DB['results']>, 'id'>;
    const rows: Row[] = [];
    const byKey = new Map<string, number>();
    for (const line of fresh) {
      let item: unknown;
      try {
        item = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      if (!item || typeof item !== 'object' || Array.isArray(item)) {
        skipped++;
        continue;
      }
      const obj = item as Record<string, unknown>;
      delete obj._id;
      delete obj.task_id;
      const value = dedup.isDedup && dedup.field ? obj[dedup.field] : undefined;
      const key = value === undefined || value === null ? null : JSON.stringify(value);
      const row: Row = {
        collection: dedup.collection,
        task_id: taskId,
        spider_id: t.spider_id,
        dedup_key: key,
        data: JSON.stringify(obj),
        create_ts: now,
      };
      if (key !== null) {
        const seen = byKey.get(key);
        if (seen !== undefined) {
          skipped++;
          if (dedup.method === 'overwrite') rows[seen] = row;
          continue;
        }
        byKey.set(key, rows.length);
      }
      rows.push(row);
    }
    let stored = 0;
    if (rows.length) {
      const dedupOn = dedup.isDedup && !!dedup.field;
      const conflict = !dedupOn
        ? sql``
        : dedup.method === 'overwrite'
          ? sql`ON CONFLICT (collection, dedup_key) DO UPDATE SET data = excluded.data, task_id = excluded.task_id, create_ts = excluded.create_ts`
          : sql`ON CONFLICT (collection, dedup_key) DO NOTHING`;
      // One statement, the rows as one array parameter (see ingestLogs); ids follow the array order.
      const res =
        engine === 'postgres'
          ? await sql<{ id: number }>`INSERT INTO results (collection, task_id, spider_id, dedup_key, data, create_ts)
              SELECT ${dedup.collection}, ${taskId}, ${t.spider_id}, x.k, x.d, ${now}::bigint
              FROM unnest(${rows.map((r) => r.dedup_key)}::text[], ${rows.map((r) => r.data)}::text[]) WITH ORDINALITY AS x(k, d, ord)
              ORDER BY x.ord ${conflict} RETURNING id`.execute(trx)
          : await sql<{ id: number }>`INSERT INTO results (collection, task_id, spider_id, dedup_key, data, create_ts)
              SELECT ${dedup.collection}, ${taskId}, ${t.spider_id}, json_extract(value, '$[0]'), json_extract(value, '$[1]'), ${now}
              FROM json_each(${JSON.stringify(rows.map((r) => [r.dedup_key, r.data]))}) WHERE true ${conflict} RETURNING id`.execute(
              trx,
            );
      stored = res.rows.length;
    }
    skipped += rows.length - stored;
    await trx
      .updateTable('tasks')
      .set({ item_offset: offset + fresh.length, result_count: t.result_count + stored })
      .where('id', '=', taskId)
      .execute();
    return { acked: offset + fresh.length, stored, skipped };
  });
}

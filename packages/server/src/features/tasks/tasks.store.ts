import { flagErrorLines, type ShipBatch } from '@crawldeck/shared';
import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { Engine } from '../../store/db.ts';
import type { LogEvent } from '../../events.ts';
import type { TaskReadSources } from '../../policies/task.policy.ts';
import {
  disjointCappedCount,
  keysetPage,
  offsetPage,
  pageWithCount,
  type Keyset,
  type ListOrder,
  type PageWindow,
  type RowSource,
} from '../../store/page.ts';

export type TaskRow = Selectable<DB['tasks']>;

/** Longest stored log line: the node cuts at 64 KiB (+ marker); this guards the store against any other client. */
export const MAX_LINE_CHARS = 64 * 1024 + 1024;

export function getTask(db: Kysely<DB>, id: string) {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

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
    type Row = {
      collection: string;
      task_id: string;
      spider_id: string;
      dedup_key: string | null;
      data: string;
      create_ts: number;
    };
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

export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** Conditions of a task list beyond what the caller may read; all optional. */
export interface TaskListFilter {
  node_id?: string;
  spider_id?: string;
  statuses?: string[];
  schedule_id?: string;
  type?: string;
}

/** Newest first; the id orders tasks created in the same millisecond. */
const TASK_ORDER: ListOrder = { columns: ['create_ts', 'id'], desc: true };
const taskKey = (t: TaskRow): [number, string] => [Number(t.create_ts), t.id];

/** Where a page of tasks starts: a cursor of an earlier page, or a page number within the counted window. */
export type TaskListAt = { cursor: Keyset } | PageWindow;

function filtered(db: Kysely<DB>, f: TaskListFilter) {
  let q = db.selectFrom('tasks');
  if (f.node_id) q = q.where('node_id', '=', f.node_id);
  if (f.spider_id) q = q.where('spider_id', '=', f.spider_id);
  if (f.statuses) q = q.where('status', 'in', f.statuses);
  if (f.schedule_id) q = q.where('schedule_id', '=', f.schedule_id);
  if (f.type) q = q.where('type', '=', f.type);
  return q;
}

/**
 * The tasks matching `f` a normal user may read, as disjoint parts: the tasks of each spider they may read, and
 * their own tasks of the other spiders. Each part is one range of an index ending on (create_ts, id).
 */
async function readableParts(db: Kysely<DB>, sources: Extract<TaskReadSources, { all: false }>, f: TaskListFilter) {
  let spiders = db.selectFrom('spiders').select('id').where(sources.spiders);
  if (f.spider_id) spiders = spiders.where('id', '=', f.spider_id);
  const ids = (await spiders.execute()).map((r) => r.id);
  const own = filtered(db, f).where('owner_id', '=', sources.ownerId);
  return [
    ...ids.map((id) => filtered(db, f).where('spider_id', '=', id)),
    ids.length ? own.where('spider_id', 'not in', ids) : own,
  ];
}

/**
 * One page of the tasks the caller may read (`sources`, from the task policy) matching `f`, newest first, with
 * the cursors of the pages around it and a total counted up to `countCap`. Every statement walks index ranges
 * ending on (create_ts, id) for at most a page (or the counted window): the cost does not grow with the table.
 */
export async function listTasks(
  db: Kysely<DB>,
  sources: TaskReadSources,
  f: TaskListFilter,
  at: TaskListAt,
  limit: number,
  countCap: number,
) {
  const parts = sources.all ? [filtered(db, f)] : await readableParts(db, sources, f);
  const rows: RowSource<TaskRow> =
    parts.length === 1 ? parts[0].selectAll() : { db, parts, load: (ids) => tasksByIds(db, ids as string[]) };
  const [page, count] = await Promise.all([
    'cursor' in at
      ? keysetPage(rows, TASK_ORDER, at.cursor, limit, taskKey)
      : offsetPage(rows, TASK_ORDER, { limit, offset: at.offset }, taskKey),
    disjointCappedCount(db, parts, countCap),
  ]);
  return { ...page, ...count };
}

export async function tasksByIds(db: Kysely<DB>, ids: string[]): Promise<TaskRow[]> {
  if (!ids.length) return [];
  return db.selectFrom('tasks').selectAll().where('id', 'in', ids).execute();
}

export async function deleteTaskRows(db: Kysely<DB>, ids: string[]): Promise<void> {
  if (ids.length) await db.deleteFrom('tasks').where('id', 'in', ids).execute();
}

export async function insertTasks(db: Kysely<DB>, rows: Insertable<DB['tasks']>[]): Promise<void> {
  await db.insertInto('tasks').values(rows).execute();
}

/** Whether a task of this spider is pending or running. */
export async function spiderHasLiveTask(db: Kysely<DB>, spiderId: string): Promise<boolean> {
  const t = await db
    .selectFrom('tasks')
    .select('id')
    .where('spider_id', '=', spiderId)
    .where('status', 'in', ['pending', 'running'])
    .limit(1)
    .executeTakeFirst();
  return !!t;
}

async function namesOf(db: Kysely<DB>, table: 'spiders' | 'nodes', ids: string[]): Promise<Map<string, string>> {
  const uniq = [...new Set(ids)];
  if (!uniq.length) return new Map();
  const rows = await db.selectFrom(table).select(['id', 'name']).where('id', 'in', uniq).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Spider id → name, for the spiders among `ids` that exist. */
export const spiderNames = (db: Kysely<DB>, ids: string[]) => namesOf(db, 'spiders', ids);

/** Node id → name, for the nodes among `ids` that exist. */
export const nodeNames = (db: Kysely<DB>, ids: string[]) => namesOf(db, 'nodes', ids);

/** The ids among `ids` of registered nodes (offline ones included). */
export async function knownNodeIds(db: Kysely<DB>, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.selectFrom('nodes').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

/** Enabled nodes the store last saw online. */
export async function onlineNodeIds(db: Kysely<DB>): Promise<string[]> {
  const rows = await db
    .selectFrom('nodes')
    .select('id')
    .where('status', '!=', 'offline')
    .where('enabled', '=', 1)
    .execute();
  return rows.map((r) => r.id);
}

/** The few node fields a task's detail shows. */
export function nodeSummary(db: Kysely<DB>, id: string) {
  return db.selectFrom('nodes').select(['id', 'name', 'type', 'status', 'ip']).where('id', '=', id).executeTakeFirst();
}

export type StoredLogLine = { line_no: number; msg: string; is_error: number };

/** Log lines numbered after+1 … after+limit (line numbers are dense from 1: a primary-key range). */
export function logLinesAfter(db: Kysely<DB>, taskId: string, after: number, limit: number): Promise<StoredLogLine[]> {
  return db
    .selectFrom('task_logs')
    .select(['line_no', 'msg', 'is_error'])
    .where('task_id', '=', taskId)
    .where('line_no', '>', after)
    .where('line_no', '<=', after + limit)
    .orderBy('line_no')
    .execute();
}

/** Log lines containing `keyword` (any case, taken literally), one page of them and how many there are. */
export function searchLog(db: Kysely<DB>, engine: Engine, taskId: string, keyword: string, page: PageWindow) {
  const pattern = `%${escapeLike(keyword)}%`;
  const cond =
    engine === 'postgres' ? sql<boolean>`msg ilike ${pattern}` : sql<boolean>`msg like ${pattern} escape '\\'`;
  const q = db.selectFrom('task_logs').where('task_id', '=', taskId).where(cond);
  return pageWithCount(q, (b) => b.select(['line_no', 'msg', 'is_error']).orderBy('line_no'), page);
}

/** The first `max` error lines of a task. */
export function errorLines(db: Kysely<DB>, taskId: string, max: number) {
  return db
    .selectFrom('task_logs')
    .select(['line_no', 'msg'])
    .where('task_id', '=', taskId)
    .where('is_error', '=', 1)
    .orderBy('line_no')
    .limit(max)
    .execute();
}

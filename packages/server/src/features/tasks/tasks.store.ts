import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import { newId, PRIORITY_DEFAULT, type RunType } from '@crawldeck/shared';
import type { Store } from '../../store/db.ts';
import type { DB } from '../../store/schema.ts';
import type { TaskReadSources } from '../../policies/task.policy.ts';
import {
  disjointCappedCount,
  keysetPage,
  offsetPage,
  type Keyset,
  type ListOrder,
  type PageWindow,
  type RowSource,
} from '../../store/page.ts';

export type TaskRow = Selectable<DB['tasks']>;
export type { DedupConfig } from '../execution/ingest.store.ts';

/** A task, unless its spider was deleted (its tasks then wait to be purged and are no one's to read). */
export function getTask(db: Kysely<DB>, id: string) {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).where(notPurging).executeTakeFirst();
}

/** Leaves out the tasks of deleted spiders still being purged (a handful of spiders at most). */
const notPurging = (eb: ExpressionBuilder<DB, 'tasks'>) =>
  eb('tasks.spider_id', 'not in', eb.selectFrom('spider_purges').select('spider_purges.spider_id'));

/** Conditions of a task list beyond what the caller may read; all optional. */
export interface TaskListFilter {
  node_id?: string;
  spider_id?: string;
  statuses?: string[];
  schedule_id?: string;
  type?: string;
  priority?: number;
}

/** Newest first; the id orders tasks created in the same millisecond. */
const TASK_ORDER: ListOrder = { columns: ['create_ts', 'id'], desc: true };
const taskKey = (t: TaskRow): [number, string] => [Number(t.create_ts), t.id];

/** Where a page of tasks starts: a cursor of an earlier page, or a page number within the counted window. */
export type TaskListAt = { cursor: Keyset } | PageWindow;

function filtered(db: Kysely<DB>, f: TaskListFilter) {
  let q = db.selectFrom('tasks').where(notPurging);
  if (f.node_id) q = q.where('node_id', '=', f.node_id);
  if (f.spider_id) q = q.where('spider_id', '=', f.spider_id);
  if (f.statuses) q = q.where('status', 'in', f.statuses);
  if (f.schedule_id) q = q.where('schedule_id', '=', f.schedule_id);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.priority !== undefined) q = q.where('priority', '=', f.priority);
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
 * On SQLite the total of all tasks, or of tasks by status, is read from the kept per-status counts instead.
 */
export async function listTasks(
  store: Pick<Store, 'db' | 'engine'>,
  sources: TaskReadSources,
  f: TaskListFilter,
  at: TaskListAt,
  limit: number,
  countCap: number,
) {
  const db = store.db;
  const parts = sources.all ? [filtered(db, f)] : await readableParts(db, sources, f);
  const rows: RowSource<TaskRow> =
    parts.length === 1 ? parts[0].selectAll() : { db, parts, load: (ids) => tasksByIds(db, ids as string[]) };
  const keptApplies = store.engine === 'sqlite' && sources.all && byStatusAtMost(f);
  const [page, count] = await Promise.all([
    'cursor' in at
      ? keysetPage(rows, TASK_ORDER, at.cursor, limit, taskKey)
      : offsetPage(rows, TASK_ORDER, { limit, offset: at.offset }, taskKey),
    keptApplies ? keptTotal(db, f.statuses, countCap) : disjointCappedCount(db, parts, countCap),
  ]);
  return { ...page, ...count };
}

/** Whether a list filter asks for tasks by status at most (no spider, node, schedule or type). */
const byStatusAtMost = (f: TaskListFilter) =>
  !f.node_id &&
  !f.spider_id &&
  !f.schedule_id &&
  !f.type &&
  f.priority === undefined &&
  (!f.statuses || f.statuses.length > 0);

/**
 * SQLite: the total of all tasks, or of the tasks in `statuses`, from the per-status counts the store keeps
 * (`task_status_counts`, kept by triggers on the tasks table), less the tasks of spiders being purged (their own
 * kept counts, `task_spider_counts`): a few rows. Counting the list up to the cap instead walks the cap's worth of
 * index entries at every page once the store holds that many tasks, on the master's only thread.
 */
async function keptTotal(db: Kysely<DB>, statuses: string[] | undefined, cap: number) {
  const row = (await keptTotalQuery(statuses).execute(db)).rows[0];
  const n = Number(row?.n ?? 0);
  return n > cap ? { total: cap, capped: true } : { total: n, capped: false };
}

/** The statement of `keptTotal` (tests read its plan). */
export function keptTotalQuery(statuses: string[] | undefined) {
  const which = statuses ? sql`WHERE status IN (${sql.join(statuses)})` : sql``;
  return sql<{ n: number }>`SELECT
    (SELECT COALESCE(SUM(n), 0) FROM task_status_counts ${which}) -
    (SELECT COALESCE(SUM(n), 0) FROM task_spider_counts ${statuses ? sql`${which} AND` : sql`WHERE`}
      spider_id IN (SELECT spider_id FROM spider_purges)) AS n`;
}

/**
 * Moves a task that still waits to another place in the queue. A task already claimed by a node, running or ended
 * keeps its priority: false then.
 */
export async function setPendingPriority(db: Kysely<DB>, taskId: string, priority: number): Promise<boolean> {
  const r = await db
    .updateTable('tasks')
    .set({ priority })
    .where('id', '=', taskId)
    .where('status', '=', 'pending')
    .where('assign_ts', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function tasksByIds(db: Kysely<DB>, ids: string[]): Promise<TaskRow[]> {
  if (!ids.length) return [];
  return db.selectFrom('tasks').selectAll().where('id', 'in', ids).execute();
}

/** The newest pending tasks, at most `limit` (a range of the status index). */
export function newestPendingTasks(db: Kysely<DB>, limit: number): Promise<TaskRow[]> {
  return db
    .selectFrom('tasks')
    .selectAll()
    .where('status', '=', 'pending')
    .orderBy('create_ts', 'desc')
    .limit(limit)
    .execute();
}

/** Log lines or items removed per statement when a task goes. */
export const TASK_PURGE_CHUNK = 1000;

/**
 * Deletes tasks with their log lines and items. A task can hold millions of lines: one cascading DELETE would hold
 * the store (and, on SQLite, the master's only thread) for the whole of them, so lines and items go first in
 * chunks, with other work let through between chunks, and the task rows last.
 */
export async function deleteTaskRows(db: Kysely<DB>, ids: string[]): Promise<void> {
  for (const id of ids) {
    while (await deleteLogChunk(db, id)) await nextTurn();
    while (await deleteItemChunk(db, id)) await nextTurn();
  }
  if (ids.length) await db.deleteFrom('tasks').where('id', 'in', ids).execute();
}

/** Deletes up to one chunk of a task's first log lines; whether a full chunk went (more may remain). */
async function deleteLogChunk(db: Kysely<DB>, taskId: string): Promise<boolean> {
  const first = db
    .selectFrom('task_logs')
    .select('line_no')
    .where('task_id', '=', taskId)
    .orderBy('line_no')
    .limit(TASK_PURGE_CHUNK);
  const r = await db
    .deleteFrom('task_logs')
    .where('task_id', '=', taskId)
    .where('line_no', 'in', first)
    .executeTakeFirst();
  return Number(r.numDeletedRows) === TASK_PURGE_CHUNK;
}

/** Deletes up to one chunk of a task's items; whether a full chunk went (more may remain). */
async function deleteItemChunk(db: Kysely<DB>, taskId: string): Promise<boolean> {
  const first = db
    .selectFrom('results')
    .select('id')
    .where('task_id', '=', taskId)
    .orderBy('id')
    .limit(TASK_PURGE_CHUNK);
  const r = await db.deleteFrom('results').where('id', 'in', first).executeTakeFirst();
  return Number(r.numDeletedRows) === TASK_PURGE_CHUNK;
}

/** What a new task is made of; everything else about it starts empty. */
export interface NewTask {
  spiderId: string;
  nodeId: string;
  runType: RunType;
  cmd: string;
  param: string;
  scheduleId: string | null;
  parentId: string | null;
  ownerId: string | null;
  /** Queue priority; the default one (3) when absent. */
  priority?: number;
  /** The run's own maximum run time in seconds; absent follows the spider's. */
  timeoutSeconds?: number;
  /** The run's own count of automatic retries; absent follows its schedule's or spider's. */
  retries?: number;
  /** 1 for a first run, n for its (n - 1)th automatic retry. */
  attempt?: number;
  /** A retry's backoff: dispatch does not start it before this time. */
  notBefore?: number;
  createTs: number;
}

/** The row of a task that waits to be dispatched: nothing run, nothing counted yet. */
export function pendingTaskRow(task: NewTask): Insertable<DB['tasks']> {
  return {
    id: newId(task.createTs),
    spider_id: task.spiderId,
    node_id: task.nodeId,
    schedule_id: task.scheduleId,
    parent_id: task.parentId,
    type: 'spider',
    status: 'pending',
    run_type: task.runType,
    param: task.param,
    cmd: task.cmd,
    error: '',
    exit_code: null,
    pid: null,
    result_count: 0,
    log_lines: 0,
    error_lines: 0,
    item_offset: 0,
    assign_ts: null,
    create_ts: task.createTs,
    start_ts: null,
    finish_ts: null,
    owner_id: task.ownerId,
    priority: task.priority ?? PRIORITY_DEFAULT,
    timeout_seconds: task.timeoutSeconds ?? null,
    attempt: task.attempt ?? 1,
    retries: task.retries ?? null,
    not_before: task.notBefore ?? null,
  };
}

export async function insertTasks(db: Kysely<DB>, rows: Insertable<DB['tasks']>[]): Promise<void> {
  await db.insertInto('tasks').values(rows).execute();
}

/** Inserts tasks and, in the same transaction, a record that must exist exactly when they do. */
export async function insertTasksWith(
  db: Kysely<DB>,
  rows: Insertable<DB['tasks']>[],
  alongside: (trx: Kysely<DB>) => Promise<void>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await insertTasks(trx, rows);
    await alongside(trx);
  });
}

/** Whether a task of this spider is pending or running. */
export async function spiderHasLiveTask(db: Kysely<DB>, spiderId: string): Promise<boolean> {
  return !!(await spiderLiveTaskQuery(db, spiderId).executeTakeFirst());
}

/**
 * The statement of `spiderHasLiveTask`: two short ranges of the (spider_id, status) index, however many finished
 * tasks the spider has.
 */
export function spiderLiveTaskQuery(db: Kysely<DB>, spiderId: string) {
  return db
    .selectFrom('tasks')
    .select('id')
    .where('spider_id', '=', spiderId)
    .where('status', 'in', ['pending', 'running'])
    .limit(1);
}

async function namesOf(db: Kysely<DB>, table: 'spiders' | 'nodes', ids: string[]): Promise<Map<string, string>> {
  const uniq = [...new Set(ids)];
  if (!uniq.length) return new Map();
  const rows = await db.selectFrom(table).select(['id', 'name']).where('id', 'in', uniq).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function spiderExists(db: Kysely<DB>, id: string): Promise<boolean> {
  return !!(await db.selectFrom('spiders').select('id').where('id', '=', id).executeTakeFirst());
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

/** The first `max` error lines of a task. */
export function errorLines(db: Kysely<DB>, taskId: string, max: number) {
  return errorLinesQuery(db, taskId, max).execute();
}

/** The statement of `errorLines` (tests read its plan). */
export function errorLinesQuery(db: Kysely<DB>, taskId: string, max: number) {
  return db
    .selectFrom('task_logs')
    .select(['line_no', 'msg'])
    .where('task_id', '=', taskId)
    .where('is_error', '=', 1)
    .orderBy('line_no')
    .limit(max);
}

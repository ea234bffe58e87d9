import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { Engine } from '../../store/db.ts';
import type { Filter } from '../../policies/types.ts';
import { pageWithCount, type PageWindow } from '../../store/page.ts';

export type TaskRow = Selectable<DB['tasks']>;
export type { DedupConfig } from './ingest.store.ts';

export function getTask(db: Kysely<DB>, id: string) {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
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

/** Tasks the caller may read (`readable`, from the task policy) matching `f`, newest first. */
export function listTasks(db: Kysely<DB>, readable: Filter<'tasks'>, f: TaskListFilter, page: PageWindow) {
  let q = db.selectFrom('tasks').where(readable);
  if (f.node_id) q = q.where('node_id', '=', f.node_id);
  if (f.spider_id) q = q.where('spider_id', '=', f.spider_id);
  if (f.statuses) q = q.where('status', 'in', f.statuses);
  if (f.schedule_id) q = q.where('schedule_id', '=', f.schedule_id);
  if (f.type) q = q.where('type', '=', f.type);
  return pageWithCount(q, (b) => b.selectAll().orderBy('create_ts', 'desc').orderBy('id', 'desc'), page);
}

export function tasksByIds(db: Kysely<DB>, ids: string[]): Promise<TaskRow[]> {
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

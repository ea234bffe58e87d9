import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { RunType, ScheduleFireInfo, ScheduleInfo, ScheduleStatus } from '@crawldeck/shared';
import { SCHEDULE_ERRORS } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';
import { everything, type Filter } from '../../policies/types.ts';
import { pageWithCount, type PageWindow } from '../../store/page.ts';

export type ScheduleRow = Selectable<DB['schedules']>;
export type ScheduleRowWithSpider = ScheduleRow & { spider_name: string | null };

export function parseIds(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Row → API shape. A schedule whose spider no longer exists shows `error` / 'Not Found Spider' at once, even
 * before the scheduler next looks at it (the spider join comes back empty).
 */
export function presentSchedule(r: ScheduleRowWithSpider): ScheduleInfo {
  let status: ScheduleStatus = r.status;
  let error = r.error;
  if (r.spider_name == null) {
    status = 'error';
    error = SCHEDULE_ERRORS.notFoundSpider;
  } else if (!r.enabled) {
    status = 'stop';
    error = '';
  }
  return {
    _id: r.id,
    name: r.name,
    description: r.description,
    cron: r.cron,
    spider_id: r.spider_id,
    spider_name: r.spider_name,
    run_type: r.run_type as RunType,
    node_ids: parseIds(r.node_ids),
    param: r.param,
    enabled: !!r.enabled,
    status,
    error,
    retries: r.retries,
    priority: r.priority,
    skip_if_running: r.skip_if_running === 1,
    timezone: r.timezone,
    next_run_ts: r.enabled && status !== 'error' ? iso(r.next_run_ts) : null,
    last_run_ts: iso(r.last_run_ts),
    owner_id: r.owner_id,
    create_ts: iso(r.create_ts),
    update_ts: iso(r.update_ts),
  };
}

export function presentFire(r: Selectable<DB['schedule_fires']>): ScheduleFireInfo {
  return {
    schedule_id: r.schedule_id,
    fire_ts: iso(r.fire_ts)!,
    kind: r.kind,
    task_ids: parseIds(r.task_ids),
    error: r.error,
    skipped: r.skipped === 'previous_running' ? 'previous_running' : '',
    create_ts: iso(r.create_ts),
  };
}

/** Schedules with their spider's name; `filter` (a policy's list filter) limits them to what the caller may read. */
export function schedulesWithSpider(db: Kysely<DB>, filter: Filter<'schedules'> = () => everything) {
  return db
    .selectFrom('schedules')
    .where(filter)
    .leftJoin('spiders', 'spiders.id', 'schedules.spider_id')
    .selectAll('schedules')
    .select('spiders.name as spider_name');
}

export async function getSchedule(db: Kysely<DB>, id: string): Promise<ScheduleRowWithSpider | undefined> {
  return schedulesWithSpider(db).where('schedules.id', '=', id).executeTakeFirst();
}

/** Records a fire under its unique key; false when that (schedule, fire time) was already recorded. */
export async function claimFire(
  db: Kysely<DB>,
  fire: { schedule_id: string; fire_ts: number; kind: 'cron' | 'catch-up' | 'manual'; master: string },
): Promise<boolean> {
  const r = await db
    .insertInto('schedule_fires')
    .values({ ...fire, task_ids: '[]', error: '', create_ts: Date.now() })
    .onConflict((oc) => oc.columns(['schedule_id', 'fire_ts']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export type FireKind = 'cron' | 'catch-up' | 'manual';

/** Schedules the caller may read (`filter`), of one spider and/or matching a name keyword, newest first. */
export function listSchedules(
  db: Kysely<DB>,
  filter: Filter<'schedules'>,
  f: { spider_id?: string; keyword?: string },
  page: PageWindow,
) {
  let q = db.selectFrom('schedules').where(filter).leftJoin('spiders', 'spiders.id', 'schedules.spider_id');
  if (f.spider_id) q = q.where('schedules.spider_id', '=', f.spider_id);
  if (f.keyword) {
    const kw = `%${f.keyword.toLowerCase()}%`;
    q = q.where((eb) => eb(eb.fn('lower', ['schedules.name']), 'like', kw));
  }
  return pageWithCount(
    q,
    (b) =>
      b
        .selectAll('schedules')
        .select('spiders.name as spider_name')
        .orderBy('schedules.create_ts', 'desc')
        .orderBy('schedules.id', 'desc'),
    page,
  );
}

/** Every schedule of one spider the caller may read, newest first. */
export function schedulesOfSpider(
  db: Kysely<DB>,
  filter: Filter<'schedules'>,
  spiderId: string,
): Promise<ScheduleRowWithSpider[]> {
  return schedulesWithSpider(db, filter)
    .where('schedules.spider_id', '=', spiderId)
    .orderBy('schedules.create_ts', 'desc')
    .execute();
}

/** The stored row alone (no spider join), as the scheduler plans with it. */
export function getScheduleRow(db: Kysely<DB>, id: string): Promise<ScheduleRow | undefined> {
  return db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
}

export function allSchedules(db: Kysely<DB>): Promise<ScheduleRow[]> {
  return db.selectFrom('schedules').selectAll().execute();
}

export async function insertSchedule(db: Kysely<DB>, row: ScheduleRow): Promise<void> {
  await db.insertInto('schedules').values(row).execute();
}

export async function updateSchedule(db: Kysely<DB>, id: string, patch: Updateable<DB['schedules']>): Promise<void> {
  await db.updateTable('schedules').set(patch).where('id', '=', id).execute();
}

/** Deletes a schedule and its fire history. */
export async function deleteSchedule(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('schedules').where('id', '=', id).execute();
  await db.deleteFrom('schedule_fires').where('schedule_id', '=', id).execute();
}

/** A spider was deleted: its schedules stop with 'Not Found Spider'. Returns their ids. */
export async function stopSchedulesOfSpider(db: Kysely<DB>, spiderId: string): Promise<string[]> {
  const rows = await db.selectFrom('schedules').select('id').where('spider_id', '=', spiderId).execute();
  if (!rows.length) return [];
  await db
    .updateTable('schedules')
    .set({ status: 'error', error: SCHEDULE_ERRORS.notFoundSpider, next_run_ts: null, update_ts: Date.now() })
    .where('spider_id', '=', spiderId)
    .execute();
  return rows.map((r) => r.id);
}

/** A schedule's fires, newest first. */
export function listFires(db: Kysely<DB>, scheduleId: string, page: PageWindow) {
  const q = db.selectFrom('schedule_fires').where('schedule_id', '=', scheduleId);
  return pageWithCount(q, (b) => b.selectAll().orderBy('fire_ts', 'desc'), page);
}

/** Why a recorded fire made no tasks. */
export async function setFireError(db: Kysely<DB>, scheduleId: string, fireTs: number, error: string): Promise<void> {
  await db
    .updateTable('schedule_fires')
    .set({ error })
    .where('schedule_id', '=', scheduleId)
    .where('fire_ts', '=', fireTs)
    .execute();
}

/** A fire that made no task on purpose, and why ('previous_running'). */
export async function setFireSkipped(db: Kysely<DB>, scheduleId: string, fireTs: number, why: string): Promise<void> {
  await db
    .updateTable('schedule_fires')
    .set({ skipped: why })
    .where('schedule_id', '=', scheduleId)
    .where('fire_ts', '=', fireTs)
    .execute();
}

/**
 * Whether the schedule's previous run still goes: a task of the latest earlier fire that made tasks, or a retry of
 * one, is pending or running. Fires skipped meanwhile made none and are passed over.
 */
export async function previousRunGoing(db: Kysely<DB>, scheduleId: string, fireTs: number): Promise<boolean> {
  const fire = await db
    .selectFrom('schedule_fires')
    .select('task_ids')
    .where('schedule_id', '=', scheduleId)
    .where('fire_ts', '<', fireTs)
    .where('task_ids', '!=', '[]')
    .orderBy('fire_ts', 'desc')
    .limit(1)
    .executeTakeFirst();
  const ids = parseIds(fire?.task_ids ?? '[]');
  if (!ids.length) return false;
  const retries = await db
    .selectFrom('task_retries')
    .select('retry_task_id')
    .where('root_id', 'in', ids)
    .where('retry_task_id', 'is not', null)
    .execute();
  const all = [...ids, ...retries.map((r) => r.retry_task_id!)];
  const going = await db
    .selectFrom('tasks')
    .select('id')
    .where('id', 'in', all)
    .where('status', 'in', ['pending', 'running'])
    .limit(1)
    .executeTakeFirst();
  return going !== undefined;
}

/** The tasks a fire made: written in the transaction that inserts them (see createTasks). */
export async function setFireTasks(
  db: Kysely<DB>,
  scheduleId: string,
  fireTs: number,
  taskIds: string[],
): Promise<void> {
  await db
    .updateTable('schedule_fires')
    .set({ task_ids: JSON.stringify(taskIds) })
    .where('schedule_id', '=', scheduleId)
    .where('fire_ts', '=', fireTs)
    .execute();
}

/** Records the latest fire time; never moves it backwards (a late catch-up finishing after a newer fire). */
export async function advanceLastRun(db: Kysely<DB>, id: string, fireTs: number): Promise<void> {
  await db
    .updateTable('schedules')
    .set({ last_run_ts: fireTs })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_run_ts', 'is', null), eb('last_run_ts', '<', fireTs)]))
    .execute();
}

/** A fire went through: an enabled schedule in error runs again. */
export async function clearScheduleError(db: Kysely<DB>, id: string): Promise<void> {
  await db
    .updateTable('schedules')
    .set({ status: 'running', error: '' })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .execute();
}

/** Tells every master listening on `channel` (PostgreSQL only) that a schedule changed. */
export async function notifyChannel(db: Kysely<DB>, channel: string, payload: string): Promise<void> {
  await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db);
}

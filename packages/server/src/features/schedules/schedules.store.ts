import type { Kysely, Selectable } from 'kysely';
import type { RunType, ScheduleFireInfo, ScheduleInfo, ScheduleStatus } from '@crawldeck/shared';
import { SCHEDULE_ERRORS } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';
import { everything, type Filter } from '../../policies/types.ts';

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

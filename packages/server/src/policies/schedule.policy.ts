/**
 * Schedules: a normal user reads the schedules they made and those of spiders they may read (spider policy), so a
 * private spider's schedules, fires and tasks stay private; the schedule's owner (or an administrator) changes,
 * enables, runs and deletes it. Schedules from before owners were recorded (no owner) stay changeable by anyone
 * who may read them.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { getSchedule, type ScheduleRowWithSpider } from '../features/schedules/schedules.store.ts';
import { canReadSpiderId, readableSpiderIds } from './spider.policy.ts';
import { everything, isAdmin, type Access, type Actor, type Filter } from './types.ts';

type ScheduleFacts = Pick<ScheduleRowWithSpider, 'owner_id' | 'spider_id'>;

export function scheduleReadFilter(actor: Actor): Filter<'schedules'> {
  return (eb) =>
    isAdmin(actor)
      ? everything
      : eb.or([eb('schedules.owner_id', '=', actor.id), eb('schedules.spider_id', 'in', readableSpiderIds(eb, actor))]);
}

export async function canSchedule(db: Kysely<DB>, actor: Actor, row: ScheduleFacts, access: Access): Promise<boolean> {
  if (isAdmin(actor) || row.owner_id === actor.id) return true;
  const readable = await canReadSpiderId(db, actor, row.spider_id);
  return access === 'read' ? readable : readable && !row.owner_id;
}

const refusal: Record<Exclude<Access, 'read'>, string> = {
  change: 'forbidden: only the owner or an administrator may change this schedule',
  run: 'forbidden: only the owner or an administrator may run this schedule',
};

/**
 * Loads a schedule for the caller: one the caller may not read (of another user's private spider) answers exactly
 * as an unknown id, 404; 403 only when the caller sees the schedule but may not change or run it.
 */
export async function scheduleFor(
  db: Kysely<DB>,
  actor: Actor,
  id: string,
  access: Access,
  message?: string,
): Promise<ScheduleRowWithSpider> {
  const row = await getSchedule(db, id);
  if (!row || !(await canSchedule(db, actor, row, 'read'))) throw notFound('schedule');
  if (access !== 'read' && !(await canSchedule(db, actor, row, access))) throw forbidden(message ?? refusal[access]);
  return row;
}

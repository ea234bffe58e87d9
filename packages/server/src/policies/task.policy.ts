/**
 * Tasks, with their logs, results and live stream: a normal user reads the tasks they started and the tasks of
 * spiders they may read (spider policy); only the user who started a task (or an administrator) cancels, restarts
 * or deletes it.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { getTask, type TaskRow } from '../features/tasks/tasks.store.ts';
import { canReadSpiderId, readableSpiderIds, spiderReadFilter } from './spider.policy.ts';
import { everything, isAdmin, type Actor, type Filter } from './types.ts';

export type TaskAccess = 'read' | 'change';

export function taskReadFilter(actor: Actor): Filter<'tasks'> {
  return (eb) =>
    isAdmin(actor)
      ? everything
      : eb.or([eb('tasks.owner_id', '=', actor.id), eb('tasks.spider_id', 'in', readableSpiderIds(eb, actor))]);
}

/**
 * The same rule as `taskReadFilter`, as the sources a long list merges: an administrator reads every task; a normal
 * user reads their own tasks and the tasks of each spider the spider policy lets them read. Each source is one
 * index range in the list's order, so a page costs the same however many tasks others have.
 */
export type TaskReadSources = { all: true } | { all: false; ownerId: string; spiders: Filter<'spiders'> };

export function taskReadSources(actor: Actor): TaskReadSources {
  return isAdmin(actor) ? { all: true } : { all: false, ownerId: actor.id, spiders: spiderReadFilter(actor) };
}

export async function canTask(
  db: Kysely<DB>,
  actor: Actor,
  t: Pick<TaskRow, 'owner_id' | 'spider_id'>,
  access: TaskAccess,
): Promise<boolean> {
  if (isAdmin(actor) || t.owner_id === actor.id) return true;
  return access === 'read' && (await canReadSpiderId(db, actor, t.spider_id));
}

/**
 * Of tasks named by id for a change (delete, cancel), those the caller may change. A task the caller may not read is
 * left out exactly as an unknown id is; a task the caller sees but did not start is refused (403).
 */
export async function tasksToChangeOf<T extends Pick<TaskRow, 'owner_id' | 'spider_id'>>(
  db: Kysely<DB>,
  actor: Actor,
  rows: T[],
): Promise<T[]> {
  const seen: T[] = [];
  for (const t of rows) if (await canTask(db, actor, t, 'read')) seen.push(t);
  for (const t of seen) assertTaskChange(actor, t);
  return seen;
}

/** Throws the 403 of a refused change (the caller already knows the task exists). */
export function assertTaskChange(actor: Actor, t: Pick<TaskRow, 'owner_id'>): void {
  if (!isAdmin(actor) && t.owner_id !== actor.id)
    throw forbidden('forbidden: only the owner of a task or an administrator may change it');
}

/**
 * Loads a task for the caller: a task the caller may not read (of another user's private spider) answers exactly as
 * an unknown id, 404; 403 only when the caller sees the task but may not change it.
 */
export async function taskFor(db: Kysely<DB>, actor: Actor, id: string, access: TaskAccess = 'read'): Promise<TaskRow> {
  const t = await getTask(db, id);
  if (!t || !(await canTask(db, actor, t, 'read'))) throw notFound('task');
  if (access === 'change') assertTaskChange(actor, t);
  return t;
}

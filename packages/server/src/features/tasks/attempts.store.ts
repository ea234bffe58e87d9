import { RETRY_MAX } from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** One attempt of a run, as the task page lists it. */
export interface AttemptRow {
  id: string;
  attempt: number;
  status: string;
  not_before: number | null;
}

/**
 * Every attempt of the run that `rootId` started: the first task and the retries claimed for it (the retry
 * bookkeeping names each one by the first task), oldest first.
 */
export async function attemptsOf(db: Kysely<DB>, rootId: string): Promise<AttemptRow[]> {
  const rows = await db
    .selectFrom('tasks')
    .select(['id', 'attempt', 'status', 'not_before'])
    .where((eb) =>
      eb.or([
        eb('id', '=', rootId),
        eb('id', 'in', eb.selectFrom('task_retries').select('retry_task_id').where('root_id', '=', rootId)),
      ]),
    )
    .execute();
  return rows
    .map((r) => ({ ...r, attempt: Number(r.attempt), not_before: r.not_before == null ? null : Number(r.not_before) }))
    .sort((a, b) => a.attempt - b.attempt || a.id.localeCompare(b.id));
}

/**
 * The automatic retries a task's run may make: the run's own count, else its schedule's (a task the schedule
 * made), else its spider's; at most RETRY_MAX. Undefined when the spider is gone.
 */
export async function retryLimitOf(
  db: Kysely<DB>,
  task: { retries: number | null; schedule_id: string | null; spider_id: string },
): Promise<number | undefined> {
  const spider = await db.selectFrom('spiders').select('retries').where('id', '=', task.spider_id).executeTakeFirst();
  if (!spider) return undefined;
  let limit = task.retries;
  if (limit == null && task.schedule_id) {
    const schedule = await db
      .selectFrom('schedules')
      .select('retries')
      .where('id', '=', task.schedule_id)
      .executeTakeFirst();
    if (schedule) limit = Number(schedule.retries);
  }
  limit ??= Number(spider.retries ?? 0);
  return Math.min(Math.max(0, limit), RETRY_MAX);
}

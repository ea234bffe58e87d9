/**
 * The attempts of a run on its task page: the first task and its automatic retries, each with its status (and,
 * for a retry waiting out its backoff, when it may start), and how many attempts the run may make at most.
 */
import type { TaskDetail, TaskStatus } from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';
import { attemptsOf, retryLimitOf } from './attempts.store.ts';
import type { TaskRow } from './tasks.store.ts';

export async function attemptsOfTask(
  db: Kysely<DB>,
  t: TaskRow,
): Promise<Pick<TaskDetail, 'attempts' | 'attempts_max'>> {
  const rootId = Number(t.attempt) > 1 && t.parent_id ? t.parent_id : t.id;
  // Every attempt carries the run's own retries, schedule and spider: its limit is the run's.
  const [rows, limit] = await Promise.all([attemptsOf(db, rootId), retryLimitOf(db, t)]);
  const attempts = rows.map((r) => ({
    _id: r.id,
    attempt: r.attempt,
    status: r.status as TaskStatus,
    not_before: iso(r.not_before),
  }));
  const made = attempts.length ? attempts[attempts.length - 1]!.attempt : 1;
  // A limit lowered since the retries were made still counts the attempts that were made.
  return { attempts, attempts_max: Math.max(made, 1 + (limit ?? 0)) };
}

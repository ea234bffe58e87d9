/**
 * Automatic retries: a task that ends in a way its spider retries (an error exit, its node lost — `abnormal` —,
 * or timed out; by default the first two) is run again as a new task, up to its run's own `retries`, else its
 * schedule's (tasks made by a schedule), else its spider's, never more than RETRY_MAX. Each retry's parent_id is
 * the FIRST task of the chain, so the original lists all its retries; each task knows its attempt number.
 *
 * Backoff: the retry waits in the queue until `not_before` = the failed attempt's end + the spider's first delay,
 * doubled for every retry already made (at most an hour). The time is stored with the task: dispatch passes it
 * over until then, whichever master dispatches and across restarts.
 *
 * A retry is only made from a final status the store holds: the failed attempt no longer runs (an `abnormal` task
 * is one whose node stayed silent for its whole offline window, or came back without it). Should a node that was
 * away come back still running the attempt, its retry is cancelled if it has not started.
 *
 * Exactly once across masters: the retry of a task is claimed by inserting that task's id into `task_retries`
 * (primary key) before the new task is created.
 */
import {
  END_REASON_PREFIX,
  RETRY_DELAY_MAX_SECONDS,
  RETRY_ON,
  RETRY_ON_DEFAULT,
  type RetryOn,
  type RunType,
} from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { createTasks, getTask, ownerMayRun, retryLimitOf, spiderExists } from './tasks-port.ts';
import { claimRetry, retriesOfChain, retryTaskOf, setRetryTask } from './retries.store.ts';

export interface TaskStatusLike {
  taskId: string;
  status: string;
}

/** How an ended task ended, in the terms a spider's `retry_on` names; null for an ending never retried. */
export function retryKindOf(t: { status: string; error: string }): RetryOn | null {
  if (t.status === 'abnormal') return 'abnormal';
  if (t.status !== 'error') return null;
  return t.error.trimStart().toLowerCase().startsWith(END_REASON_PREFIX.timedOut) ? 'timed_out' : 'error';
}

/** A spider's stored `retry_on` (comma separated) as a list; unknown words are left out. */
export function retryOnOf(stored: string | null | undefined): RetryOn[] {
  if (stored == null) return [...RETRY_ON_DEFAULT];
  return RETRY_ON.filter((k) => stored.split(',').includes(k));
}

/** The wait before the retry that follows `retriesMade` earlier ones: the first delay, doubled each time, capped. */
export function backoffMs(firstDelaySeconds: number, retriesMade: number): number {
  const seconds = Math.max(1, firstDelaySeconds) * 2 ** Math.min(retriesMade, 20);
  return Math.min(seconds, RETRY_DELAY_MAX_SECONDS) * 1000;
}

/**
 * Decides the retries of ended tasks one after another, in the order their endings were heard on this master:
 * the decision on a task is made before the one on any task that ended after it.
 */
export function retryInOrder(ctx: AppContext): (ev: TaskStatusLike) => void {
  let last: Promise<unknown> = Promise.resolve();
  return (ev) => {
    const decide: (() => Promise<unknown>) | undefined =
      ev.status === 'error' || ev.status === 'abnormal'
        ? () => retryIfNeeded(ctx, ev)
        : ev.status === 'running'
          ? () => cancelRetryOfRevived(ctx, ev.taskId)
          : undefined;
    if (!decide) return;
    last = last.then(decide).catch((err) => ctx.log.error({ err, taskId: ev.taskId }, 'task retry failed'));
  };
}

/**
 * A task runs: if it is an attempt that ended `abnormal` and its node brought it back (the process ran on while
 * the node was away), its retry must not run beside it; a retry that has not started yet is cancelled.
 */
async function cancelRetryOfRevived(ctx: AppContext, taskId: string): Promise<void> {
  const retryId = await retryTaskOf(ctx.store.db, taskId);
  if (!retryId) return;
  const retry = await getTask(ctx.store.db, retryId);
  if (retry?.status !== 'pending') return;
  await ctx.execution.cancel(retryId);
  ctx.log.warn({ taskId, retryId }, 'retry cancelled: the attempt it repeats runs again');
}

export async function retryIfNeeded(ctx: AppContext, ev: TaskStatusLike): Promise<string | null> {
  const db = ctx.store.db;
  const task = await getTask(db, ev.taskId);
  if (!task) return null;
  const kind = retryKindOf(task);
  const spider = kind && (await spiderExists(ctx, task.spider_id));
  if (!kind || !spider || !retryOnOf(spider.retry_on).includes(kind)) return null;
  // The chain is the first task plus its retries, which all carry parent_id = the first task.
  const rootId = task.parent_id ?? task.id;
  const limit = await retryLimitOf(db, task);
  if (limit === undefined) return null;
  const made = await retriesOfChain(db, rootId);
  if (made >= limit) return null;
  // Same rule as a fire: no retry for a user who may no longer run the spider.
  if (!(await ownerMayRun(ctx, task.owner_id, task.spider_id))) return null;
  if (!(await claimRetry(db, task.id, rootId, made + 1))) return null;

  const notBefore = (task.finish_ts ?? Date.now()) + backoffMs(Number(spider.retry_delay_seconds), made);
  // A random run retries anywhere; a run pinned to nodes (all or selected) retries on the same node.
  const random = task.run_type === 'random' || !task.node_id || /^0+$/.test(task.node_id);
  const [retryId] = await createTasks(
    ctx,
    {
      spiderId: task.spider_id,
      runType: (random ? 'random' : 'selected-nodes') as RunType,
      nodeIds: random ? [] : [task.node_id],
      param: task.param,
      scheduleId: task.schedule_id,
      parentId: rootId,
      ownerId: task.owner_id,
      priority: task.priority,
      timeoutSeconds: task.timeout_seconds ?? undefined,
      retries: task.retries ?? undefined,
      attempt: made + 2,
      notBefore,
    },
    // The claim names its task in the transaction that creates it.
    (trx, ids) => setRetryTask(trx, task.id, ids[0] ?? null),
  );
  ctx.log.info({ taskId: task.id, retryId, attempt: made + 2, limit, notBefore }, 'task retried');
  return retryId ?? null;
}

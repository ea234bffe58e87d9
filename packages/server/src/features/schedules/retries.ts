/**
 * Automatic retries: a task that ends `error` or `abnormal` is run again as a new task,
 * up to its schedule's `retries` (tasks made by a schedule) or its spider's `retries` (manual runs), never more
 * than RETRY_MAX. Each retry's parent_id is the FIRST task of the chain, so the original lists all its retries.
 *
 * Exactly once across masters: the retry of a task is claimed by inserting that task's id into `task_retries`
 * (primary key) before the new task is created.
 */
import { RETRY_MAX, type RunType } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { createTasks, getTask, ownerMayRun, spiderExists } from './tasks-port.ts';
import { claimRetry, retriesOfChain, setRetryTask } from './retries.store.ts';
import { getScheduleRow } from './schedules.store.ts';

export const RETRY_STATUSES = ['error', 'abnormal'];

export interface TaskStatusLike {
  taskId: string;
  status: string;
}

export async function retryIfNeeded(ctx: AppContext, ev: TaskStatusLike): Promise<string | null> {
  if (!RETRY_STATUSES.includes(ev.status)) return null;
  const db = ctx.store.db;
  const task = await getTask(db, ev.taskId);
  if (!task || !RETRY_STATUSES.includes(task.status)) return null;
  // The chain is the first task plus its retries, which all carry parent_id = the first task.
  const rootId = task.parent_id ?? task.id;
  const limit = await retryLimit(ctx, task);
  if (limit === undefined) return null;
  const attempt = await retriesOfChain(db, rootId);
  if (attempt >= limit) return null;
  // Same rule as a fire: no retry for a user who may no longer run the spider.
  if (!(await ownerMayRun(ctx, task.owner_id, task.spider_id))) return null;
  if (!(await claimRetry(db, task.id, rootId, attempt + 1))) return null;

  // A random run retries anywhere; a run pinned to nodes (all or selected) retries on the same node.
  const random = task.run_type === 'random' || !task.node_id || /^0+$/.test(task.node_id);
  const [retryId] = await createTasks(ctx, {
    spiderId: task.spider_id,
    runType: (random ? 'random' : 'selected-nodes') as RunType,
    nodeIds: random ? [] : [task.node_id],
    param: task.param,
    scheduleId: task.schedule_id,
    parentId: rootId,
    ownerId: task.owner_id,
    priority: task.priority,
    timeoutSeconds: task.timeout_seconds ?? undefined,
  });
  await setRetryTask(db, task.id, retryId ?? null);
  ctx.log.info({ taskId: task.id, retryId, attempt: attempt + 1, limit }, 'task retried');
  return retryId ?? null;
}

/** Retries allowed: the schedule's for a task it made, else the spider's; undefined when the spider is gone. */
async function retryLimit(
  ctx: AppContext,
  task: { schedule_id: string | null; spider_id: string },
): Promise<number | undefined> {
  const schedule = task.schedule_id ? await getScheduleRow(ctx.store.db, task.schedule_id) : undefined;
  let limit: number;
  if (schedule) limit = schedule.retries;
  else {
    const spider = await spiderExists(ctx, task.spider_id);
    if (!spider) return undefined;
    limit = spider.retries ?? 0;
  }
  return Math.min(Math.max(0, limit), RETRY_MAX);
}

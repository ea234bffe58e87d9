/**
 * Automatic retries (issue 5 "Retries"): a task that ends `error` or `abnormal` is run again as a new task,
 * up to its schedule's `retries` (tasks made by a schedule) or its spider's `retries` (manual runs), never more
 * than RETRY_MAX. Each retry's parent_id is the FIRST task of the chain, so the original lists all its retries.
 *
 * Exactly once across masters: the retry of a task is claimed by inserting that task's id into `task_retries`
 * (primary key) before the new task is created.
 */
import { RETRY_MAX, type RunType } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { createTasks, ownerMayRun } from './tasks-port.ts';

export const RETRY_STATUSES = ['error', 'abnormal'];

export interface TaskStatusLike {
  taskId: string;
  status: string;
}

export async function retryIfNeeded(ctx: AppContext, ev: TaskStatusLike): Promise<string | null> {
  if (!RETRY_STATUSES.includes(ev.status)) return null;
  const db = ctx.store.db;
  const task = await db
    .selectFrom('tasks')
    .select(['id', 'spider_id', 'node_id', 'schedule_id', 'parent_id', 'run_type', 'param', 'owner_id', 'status'])
    .where('id', '=', ev.taskId)
    .executeTakeFirst();
  if (!task || !RETRY_STATUSES.includes(task.status)) return null;
  // The chain is the first task plus its retries, which all carry parent_id = the first task.
  const rootId = task.parent_id ?? task.id;
  let limit = 0;
  const schedule = task.schedule_id
    ? await db.selectFrom('schedules').select('retries').where('id', '=', task.schedule_id).executeTakeFirst()
    : undefined;
  if (schedule) limit = schedule.retries;
  else {
    const spider = await db.selectFrom('spiders').select('retries').where('id', '=', task.spider_id).executeTakeFirst();
    if (!spider) return null;
    limit = spider.retries ?? 0;
  }
  limit = Math.min(Math.max(0, limit), RETRY_MAX);
  const done = await db
    .selectFrom('task_retries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('root_id', '=', rootId)
    .executeTakeFirst();
  const attempt = Number(done?.n ?? 0);
  if (attempt >= limit) return null;
  // Same rule as a fire: no retry for a user who may no longer run the spider.
  if (!(await ownerMayRun(ctx, task.owner_id, task.spider_id))) return null;

  const claimed = await db
    .insertInto('task_retries')
    .values({ task_id: task.id, root_id: rootId, retry_task_id: null, attempt: attempt + 1, create_ts: Date.now() })
    .onConflict((oc) => oc.column('task_id').doNothing())
    .executeTakeFirst();
  if (!Number(claimed.numInsertedOrUpdatedRows ?? 0n)) return null;

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
  });
  await db
    .updateTable('task_retries')
    .set({ retry_task_id: retryId ?? null })
    .where('task_id', '=', task.id)
    .execute();
  ctx.log.info({ taskId: task.id, retryId, attempt: attempt + 1, limit }, 'task retried');
  return retryId ?? null;
}

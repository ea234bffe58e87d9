/**
 * The seam between schedules and the tasks/spiders/nodes features: everything this feature needs from them,
 * in one place, so a change of their API touches one file.
 */
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { errorText } from '@crawldeck/shared';
import { missingCommand } from '../spiders/command-inference.ts';
import { createTasks as createTasksImpl, readableTasks, type CreateTasksInput } from '../tasks/tasks.service.ts';
import { canSpider, spiderFor, spiderOwner } from '../../policies/index.ts';
import type { AuthUser } from '../../http/auth.ts';
import { getSpider, type SpiderRow } from '../spiders/spiders.store.ts';
import { getTask, knownNodeIds } from '../tasks/tasks.store.ts';
import { retryLimitOf } from '../tasks/attempts.store.ts';

export { getTask, readableTasks, retryLimitOf };

export type { CreateTasksInput };

/**
 * Creates the tasks of a fire or a retry (tasks feature); they carry schedule_id / parent_id. `alongside` is
 * written in the same transaction as the tasks (the fire's record of them).
 */
export function createTasks(
  ctx: AppContext,
  input: CreateTasksInput,
  alongside?: (trx: Kysely<DB>, taskIds: string[]) => Promise<void>,
): Promise<string[]> {
  return createTasksImpl(ctx, input, alongside);
}

/**
 * The refusal of a schedule whose every fire would fail: its spider has no command, or runs `scrapy crawl` with no
 * Scrapy spider name in the schedule's parameters. Null when its tasks can start.
 */
export async function commandMissing(ctx: AppContext, spiderId: string, param: string): Promise<string | null> {
  const spider = await getSpider(ctx.store.db, spiderId);
  const missing = spider && missingCommand(spider.cmd, param);
  return missing ? errorText(`schedule.${missing}`) : null;
}

export async function spiderExists(ctx: AppContext, spiderId: string): Promise<SpiderRow | undefined> {
  return getSpider(ctx.store.db, spiderId);
}

/** The subset of `ids` that are still registered nodes (deleted nodes are gone; offline ones still count). */
export async function existingNodeIds(ctx: AppContext, ids: string[]): Promise<string[]> {
  const found = await knownNodeIds(ctx.store.db, ids);
  return ids.filter((id) => found.has(id));
}

/** A user may schedule a spider they may run (spider policy, as PUT /tasks): 404 when missing, 403 when private. */
export async function checkSpiderAccess(ctx: AppContext, user: AuthUser, spiderId: string): Promise<void> {
  await spiderFor(ctx.store.db, user, spiderId, 'run');
}

/**
 * Whether the user who made a schedule may still run its spider (spider policy): a schedule must not keep running
 * a spider its owner lost access to (made private by its owner). Schedules without an owner are not checked.
 */
export async function ownerMayRun(ctx: AppContext, ownerId: string | null, spiderId: string): Promise<boolean> {
  if (!ownerId) return true;
  const db = ctx.store.db;
  const [owner, spider] = await Promise.all([spiderOwner(db, ownerId), getSpider(db, spiderId)]);
  return !!owner && !!spider && canSpider(owner, spider, 'run');
}

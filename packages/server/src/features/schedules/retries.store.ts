import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** How many retries the chain that started with task `rootId` has had. */
export async function retriesOfChain(db: Kysely<DB>, rootId: string): Promise<number> {
  const done = await db
    .selectFrom('task_retries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('root_id', '=', rootId)
    .executeTakeFirst();
  return Number(done?.n ?? 0);
}

/** Claims the retry of a task, once across masters (the task id is the key); false when already claimed. */
export async function claimRetry(db: Kysely<DB>, taskId: string, rootId: string, attempt: number): Promise<boolean> {
  const claimed = await db
    .insertInto('task_retries')
    .values({ task_id: taskId, root_id: rootId, retry_task_id: null, attempt, create_ts: Date.now() })
    .onConflict((oc) => oc.column('task_id').doNothing())
    .executeTakeFirst();
  return Number(claimed.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The task a claimed retry made. */
export async function setRetryTask(db: Kysely<DB>, taskId: string, retryTaskId: string | null): Promise<void> {
  await db.updateTable('task_retries').set({ retry_task_id: retryTaskId }).where('task_id', '=', taskId).execute();
}

/** The retry made for a task, if one was. */
export async function retryTaskOf(db: Kysely<DB>, taskId: string): Promise<string | null> {
  const row = await db
    .selectFrom('task_retries')
    .select('retry_task_id')
    .where('task_id', '=', taskId)
    .executeTakeFirst();
  return row?.retry_task_id ?? null;
}

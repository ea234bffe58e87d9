import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { getSetting } from '../system/settings.store.ts';

/**
 * Settings → General "normal users' tasks on the master node". The master's own node shares the master's host,
 * so by default (off) tasks started by normal users stay off it while any enabled worker node exists; with no
 * worker node they run there (isolated like on any node). Tasks of admins and of no user (system) may always run
 * there.
 */
export const USER_TASKS_ON_MASTER_KEY = 'user_tasks_on_master';

/** True when tasks of normal users must not run on master-type nodes right now. */
export async function masterNodeClosedToUsers(db: Kysely<DB>): Promise<boolean> {
  if (await getSetting(db, USER_TASKS_ON_MASTER_KEY, false)) return false;
  const worker = await db
    .selectFrom('nodes')
    .select('id')
    .where('type', '=', 'worker')
    .where('enabled', '=', 1)
    .limit(1)
    .executeTakeFirst();
  return worker !== undefined;
}

/** Whether tasks owned by this user count as a normal user's (a deleted owner does too; no owner is the system). */
export async function isNormalUsersTask(db: Kysely<DB>, ownerId: string | null | undefined): Promise<boolean> {
  if (!ownerId) return false;
  const user = await db.selectFrom('users').select('role').where('id', '=', ownerId).executeTakeFirst();
  return user?.role !== 'admin';
}

/** The master-type nodes among these node ids. */
export async function masterNodeIds(db: Kysely<DB>, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.selectFrom('nodes').select('id').where('id', 'in', ids).where('type', '=', 'master').execute();
  return new Set(rows.map((r) => r.id));
}

import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** Whether any enabled worker node (not the master's own) is registered. */
export async function enabledWorkerExists(db: Kysely<DB>): Promise<boolean> {
  const worker = await db
    .selectFrom('nodes')
    .select('id')
    .where('type', '=', 'worker')
    .where('enabled', '=', 1)
    .limit(1)
    .executeTakeFirst();
  return worker !== undefined;
}

/** The role of a user; undefined when the user no longer exists. */
export async function userRole(db: Kysely<DB>, userId: string) {
  const user = await db.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirst();
  return user?.role;
}

/** The master-type nodes among these node ids. */
export async function masterNodeIdsAmong(db: Kysely<DB>, ids: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('nodes').select('id').where('id', 'in', ids).where('type', '=', 'master').execute();
  return new Set(rows.map((r) => r.id));
}

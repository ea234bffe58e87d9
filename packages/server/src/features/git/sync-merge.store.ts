import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** The upstream commit of the spider's last successful sync ('' when it was never synced). */
export async function lastSyncedCommit(db: Kysely<DB>, spiderId: string): Promise<string> {
  const row = await db
    .selectFrom('git_state')
    .select('base_commit')
    .where('spider_id', '=', spiderId)
    .executeTakeFirst();
  return row?.base_commit ?? '';
}

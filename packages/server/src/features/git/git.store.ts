import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { SpiderRow } from '../spiders/spiders.store.ts';

/** The last sync of a Git spider: remote, branch, commit and the outcome of the last attempt. */
export type GitStateRow = Selectable<DB['git_state']>;

export function findGitState(db: Kysely<DB>, spiderId: string): Promise<GitStateRow | undefined> {
  return db.selectFrom('git_state').selectAll().where('spider_id', '=', spiderId).executeTakeFirst();
}

/** What a successful sync records. */
export type GitSyncState = Omit<GitStateRow, 'spider_id'>;

export async function saveGitSync(db: Kysely<DB>, spiderId: string, values: GitSyncState): Promise<void> {
  await db
    .insertInto('git_state')
    .values({ spider_id: spiderId, ...values })
    .onConflict((oc) => oc.column('spider_id').doUpdateSet(values))
    .execute();
}

/** A failed sync keeps the last good state and records when it failed and why. */
export async function saveGitFailure(
  db: Kysely<DB>,
  spiderId: string,
  first: { remote: string; branch: string },
  at: number,
  error: string,
): Promise<void> {
  await db
    .insertInto('git_state')
    .values({
      spider_id: spiderId,
      ...first,
      branches: '[]',
      commit_info: null,
      base_commit: '',
      sync_ts: null,
      attempt_ts: at,
      error,
    })
    .onConflict((oc) => oc.column('spider_id').doUpdateSet({ attempt_ts: at, error }))
    .execute();
}

/** A spider imported without a branch keeps the one its first sync chose. */
export async function setSpiderBranch(db: Kysely<DB>, spiderId: string, branch: string): Promise<void> {
  await db.updateTable('spiders').set({ git_branch: branch }).where('id', '=', spiderId).execute();
}

/**
 * Claims the next auto-sync attempt of a spider: true for exactly one caller (one master of several on a shared
 * store) once the last attempt is older than `due`, by moving attempt_ts forward in one conditional write.
 */
export async function claimAutoSync(db: Kysely<DB>, spiderId: string, due: number): Promise<boolean> {
  const now = Date.now();
  const inserted = await db
    .insertInto('git_state')
    .values({
      spider_id: spiderId,
      remote: '',
      branch: '',
      branches: '[]',
      commit_info: null,
      base_commit: '',
      sync_ts: null,
      attempt_ts: now,
      error: '',
    })
    .onConflict((oc) => oc.column('spider_id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return true;
  const updated = await db
    .updateTable('git_state')
    .set({ attempt_ts: now })
    .where('spider_id', '=', spiderId)
    .where((eb) => eb.or([eb('attempt_ts', 'is', null), eb('attempt_ts', '<', due)]))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Git spiders with auto-sync on whose last attempt is older than `due` (or that never tried). */
export function listDueAutoSync(db: Kysely<DB>, due: number): Promise<SpiderRow[]> {
  return db
    .selectFrom('spiders')
    .leftJoin('git_state', 'git_state.spider_id', 'spiders.id')
    .selectAll('spiders')
    .where('spiders.git_auto_sync', '=', 1)
    .where('spiders.git_url', '!=', '')
    .where((eb) => eb.or([eb('git_state.attempt_ts', 'is', null), eb('git_state.attempt_ts', '<', due)]))
    .execute();
}

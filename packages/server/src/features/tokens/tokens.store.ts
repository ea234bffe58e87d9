import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { inTransaction } from '../../store/query-helpers.ts';
import type { Filter } from '../../policies/types.ts';

/**
 * The `tokens` table: sessions (kind `session`, made by sign-in) and personal API tokens (kind `api`). Only the
 * SHA-256 of a token is stored.
 */
export type TokenRow = Selectable<DB['tokens']>;

export async function insertToken(db: Kysely<DB>, row: TokenRow): Promise<void> {
  await db.insertInto('tokens').values(row).execute();
}

/**
 * Stores a new API token and revokes the caller's other API tokens of the same name, in one transaction. `mine`
 * is the token policy's filter of the caller's own API tokens.
 */
export async function replaceApiToken(db: Kysely<DB>, mine: Filter<'tokens'>, row: TokenRow): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.deleteFrom('tokens').where(mine).where('name', '=', row.name).execute();
    await trx.insertInto('tokens').values(row).execute();
  });
}

export function listApiTokens(db: Kysely<DB>, mine: Filter<'tokens'>): Promise<TokenRow[]> {
  return db.selectFrom('tokens').selectAll().where(mine).orderBy('create_ts', 'desc').execute();
}

/** How many API tokens the caller holds, not counting those named `exceptName` (about to be replaced). */
export async function countApiTokens(db: Kysely<DB>, mine: Filter<'tokens'>, exceptName?: string): Promise<number> {
  let q = db
    .selectFrom('tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(mine);
  if (exceptName !== undefined) q = q.where('name', '!=', exceptName);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Revokes one of the caller's API tokens; false when the caller has no such token. */
export async function deleteApiToken(db: Kysely<DB>, mine: Filter<'tokens'>, id: string): Promise<boolean> {
  const res = await db.deleteFrom('tokens').where('id', '=', id).where(mine).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Sign-out: ends this session (an API token is not ended by it). */
export async function deleteSession(db: Kysely<DB>, tokenId: string): Promise<void> {
  await db.deleteFrom('tokens').where('id', '=', tokenId).where('kind', '=', 'session').execute();
}

/**
 * Ends a user's sessions after a password change or reset, except `keepTokenId` (the session that made the
 * change). With `apiTokens` the user's API tokens are revoked too.
 */
export async function endSessions(
  db: Kysely<DB>,
  userId: string,
  opts: { keepTokenId?: string; apiTokens?: boolean },
): Promise<void> {
  let q = db
    .deleteFrom('tokens')
    .where('user_id', '=', userId)
    .where('id', '!=', opts.keepTokenId ?? '');
  if (!opts.apiTokens) q = q.where('kind', '=', 'session');
  await q.execute();
}

/** Every token of a user, sessions included (the user is being deleted). */
export async function deleteUserTokens(db: Kysely<DB>, userId: string): Promise<void> {
  await db.deleteFrom('tokens').where('user_id', '=', userId).execute();
}

/** The token with this hash and its user, for authentication. */
export function findTokenWithUser(db: Kysely<DB>, tokenHash: string) {
  return db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select([
      'tokens.id as token_id',
      'tokens.kind',
      'tokens.expire_ts',
      'tokens.last_used_ts',
      'users.id',
      'users.username',
      'users.role',
    ])
    .where('tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchToken(db: Kysely<DB>, tokenId: string, at: number): Promise<void> {
  await db.updateTable('tokens').set({ last_used_ts: at }).where('id', '=', tokenId).execute();
}

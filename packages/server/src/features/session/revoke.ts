import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

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

import { USER_ERRORS, isValidEmail, type UpdateUserBody } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { AuthUser } from '../../http/auth.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { inTransaction } from '../../store/query-helpers.ts';
import { hashPassword } from '../session/passwords.ts';
import { deleteUserTokens, endSessions } from '../tokens/tokens.store.ts';
import {
  countAdminsForUpdate,
  deleteUserRow,
  findUserById,
  updateUser,
  type UserPatch,
  type UserRow,
} from './users.store.ts';

/**
 * An administrator changes a user's role, e-mail or password. The last administrator cannot be demoted; a
 * password reset ends every session of that user (except the admin's own), and its API tokens when asked.
 */
export async function changeUser(ctx: AppContext, actor: AuthUser, id: string, body: UpdateUserBody): Promise<UserRow> {
  const { db, engine } = ctx.store;
  const email = body.email?.trim();
  if (email && !isValidEmail(email)) throw badRequest('e-mail format is invalid');
  const passwordHash = body.password !== undefined ? await hashPassword(body.password) : undefined;
  await inTransaction(db, async (trx) => {
    const user = await findUserById(trx, id);
    if (!user) throw notFound('user');
    if (body.role === 'normal' && user.role === 'admin' && (await countAdminsForUpdate(trx, engine)) <= 1)
      throw conflict(USER_ERRORS.lastAdmin);
    const patch: UserPatch = { update_ts: Date.now() };
    if (body.role) patch.role = body.role;
    if (email !== undefined) patch.email = email;
    if (passwordHash) patch.password_hash = passwordHash;
    await updateUser(trx, user.id, patch);
    if (passwordHash) {
      const keep = actor.id === user.id ? actor.tokenId : '';
      await endSessions(trx, user.id, { keepTokenId: keep, apiTokens: body.revoke_tokens === true });
    }
  });
  return (await findUserById(db, id))!;
}

/**
 * Deletes a user and its tokens; never oneself, never the last administrator. The user's spiders go with the user
 * (the store's cascade), and the announcement starts the purge of their tasks at once.
 */
export async function removeUser(ctx: AppContext, actor: AuthUser, id: string): Promise<void> {
  if (id === actor.id) throw badRequest(USER_ERRORS.deleteSelf);
  const { db, engine } = ctx.store;
  await inTransaction(db, async (trx) => {
    const user = await findUserById(trx, id);
    if (!user) throw notFound('user');
    if (user.role === 'admin' && (await countAdminsForUpdate(trx, engine)) <= 1) throw conflict(USER_ERRORS.lastAdmin);
    await deleteUserTokens(trx, user.id);
    await deleteUserRow(trx, user.id);
  });
  ctx.events.emit('user.deleted', id);
}

import {
  AddUserBody,
  UpdateUserBody,
  USER_ERRORS,
  UserListQuery,
  isValidEmail,
  isValidPassword,
  isValidUsername,
} from '@crawldeck/shared';
import { LooseIdParams } from '@crawldeck/shared';
import type { Transaction } from 'kysely';
import type { Feature } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { ok, paging } from '../../http/envelope.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { endSessions } from '../session/revoke.ts';
import { hashPassword } from '../session/passwords.ts';
import { findUserById, findUserByUsername, insertUser, isUniqueViolation, presentUser } from './users.store.ts';

/**
 * Number of admins, read inside the caller's transaction. On PostgreSQL the admin rows are locked (FOR UPDATE) so
 * two concurrent demotions/deletions cannot both see "2 admins" and leave none; SQLite serialises writers anyway.
 */
async function adminCount(trx: Transaction<DB>, engine: 'sqlite' | 'postgres'): Promise<number> {
  let q = trx.selectFrom('users').select('id').where('role', '=', 'admin');
  if (engine === 'postgres') q = q.forUpdate();
  return (await q.execute()).length;
}

const IdParams = LooseIdParams;
const admin = { access: 'admin' as const };

/** User administration (spec §7 "Users and variables"): admin only, enforced here whatever the console shows. */
export const usersFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  app.get('/api/users', { config: admin, schema: { querystring: UserListQuery } }, async (req) => {
    const { limit, offset } = paging(req.query);
    const [rows, count] = await Promise.all([
      db.selectFrom('users').selectAll().orderBy('create_ts', 'asc').orderBy('id', 'asc').limit(limit).offset(offset).execute(),
      db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return ok(rows.map(presentUser), Number(count.n));
  });

  app.put('/api/users-add', { config: admin, schema: { body: AddUserBody } }, async (req) => {
    const username = req.body.username.trim();
    if (!isValidUsername(username)) throw badRequest('Please enter the correct username');
    if (!isValidPassword(req.body.password)) throw badRequest('password must be at least 5 characters');
    const email = req.body.email?.trim() ?? '';
    if (email && !isValidEmail(email)) throw badRequest('e-mail format is invalid');
    if (await findUserByUsername(db, username)) throw conflict('username already exists');
    try {
      const row = await insertUser(db, { username, passwordHash: await hashPassword(req.body.password), role: req.body.role ?? 'normal', email });
      return ok(presentUser(row));
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('username already exists');
      throw err;
    }
  });

  app.post('/api/users/:id', { config: admin, schema: { params: IdParams, body: UpdateUserBody } }, async (req) => {
    const { role, password } = req.body;
    const email = req.body.email?.trim();
    if (email && !isValidEmail(email)) throw badRequest('e-mail format is invalid');
    const passwordHash = password !== undefined ? await hashPassword(password) : undefined;
    await db.transaction().execute(async (trx) => {
      const user = await trx.selectFrom('users').selectAll().where('id', '=', req.params.id).executeTakeFirst();
      if (!user) throw notFound('user');
      if (role === 'normal' && user.role === 'admin') {
        if ((await adminCount(trx, ctx.store.engine)) <= 1) throw conflict(USER_ERRORS.lastAdmin);
      }
      const patch: { update_ts: number; role?: 'normal' | 'admin'; email?: string; password_hash?: string } = { update_ts: Date.now() };
      if (role) patch.role = role;
      if (email !== undefined) patch.email = email;
      if (passwordHash) patch.password_hash = passwordHash;
      await trx.updateTable('users').set(patch).where('id', '=', user.id).execute();
      // A password reset ends every session of that user; its API tokens too when asked (`revoke_tokens`).
      if (passwordHash) {
        const keep = req.user.id === user.id ? req.user.tokenId : '';
        await endSessions(trx, user.id, { keepTokenId: keep, apiTokens: req.body.revoke_tokens === true });
      }
    });
    return ok(presentUser((await findUserById(db, req.params.id))!));
  });

  app.delete('/api/users/:id', { config: admin, schema: { params: IdParams } }, async (req) => {
    if (req.params.id === req.user.id) throw badRequest(USER_ERRORS.deleteSelf);
    await db.transaction().execute(async (trx) => {
      const user = await trx.selectFrom('users').select(['id', 'role']).where('id', '=', req.params.id).executeTakeFirst();
      if (!user) throw notFound('user');
      if (user.role === 'admin') {
        if ((await adminCount(trx, ctx.store.engine)) <= 1) throw conflict(USER_ERRORS.lastAdmin);
      }
      await trx.deleteFrom('tokens').where('user_id', '=', user.id).execute();
      await trx.deleteFrom('users').where('id', '=', user.id).execute();
    });
    return ok(null);
  });
};

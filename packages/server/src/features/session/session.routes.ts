import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import {
  ActionBody,
  ActionSummaryQuery,
  ActionSummaryRow,
  LoginBody,
  OkNull,
  SignUpBody,
  UpdateMeBody,
  UserInfo,
  isValidEmail,
  isValidPassword,
  isValidUsername,
  newId,
  okResponse,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { ok } from '../../http/envelope.ts';
import { HttpError, badRequest, conflict, forbidden, unauthorized } from '../../http/errors.ts';
import { hashToken, newRawToken } from '../../http/auth.ts';
import {
  findUserById,
  findUserByUsername,
  insertUser,
  isUniqueViolation,
  presentUser,
  updateUser,
  type UserPatch,
} from '../users/users.store.ts';
import { deleteSession, endSessions, insertToken } from '../tokens/tokens.store.ts';
import { inTransaction } from '../../store/query-helpers.ts';
import { insertAction, summarizeActions } from './session.store.ts';
import { getSetting } from '../system/settings.store.ts';
import { hashPassword, verifyUserPassword } from './passwords.ts';
import { LoginThrottle, WindowLimiter } from './login-limiter.ts';

/** Settings key: whether anyone may sign up (PUT /users) without an administrator. */
export const ALLOW_SIGNUP_KEY = 'allow_signup';

/**
 * Whether a visitor may create their own account. Closed until an administrator opens it in Settings → General:
 * every account can run code on the nodes, so a fresh master must not hand that to whoever finds it.
 */
export const signupOpen = (db: Kysely<DB>): Promise<boolean> => getSetting(db, ALLOW_SIGNUP_KEY, false);

/** Sign in/out, own account, sign-up and the usage-statistics collector. */
export const sessionFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const limiter = new LoginThrottle({
    freeFailures: ctx.config.loginFreeFailures,
    maxDelayMs: ctx.config.loginMaxDelayMs,
  });
  const signups = new WindowLimiter(ctx.config.signupsPerHour, 3600_000);
  // Computes the dummy hash now, so the first unknown username costs the same as any other.
  void verifyUserPassword('', undefined);

  const tooMany = (reply: { header(k: string, v: string): unknown }, wait: number, what: string) => {
    reply.header('retry-after', String(wait));
    return new HttpError(429, `too many ${what}; try again in ${wait} s`);
  };
  app.post(
    '/api/login',
    { config: { access: 'public' }, schema: { body: LoginBody, response: okResponse(Type.String()) } },
    async (req, reply) => {
      const username = req.body.username.trim();
      const wait = limiter.retryAfter(username, req.ip);
      if (wait > 0) throw tooMany(reply, wait, 'failed sign-in attempts');
      const user = await findUserByUsername(db, username);
      if (!(await verifyUserPassword(req.body.password, user?.password_hash)) || !user) {
        limiter.fail(username, req.ip);
        throw unauthorized('username or password is incorrect');
      }
      limiter.succeed(username, req.ip);
      const raw = newRawToken();
      const now = Date.now();
      const name = req.headers['user-agent']?.slice(0, 200) ?? '';
      await insertToken(db, {
        id: newId(now),
        user_id: user.id,
        token_hash: hashToken(raw),
        kind: 'session',
        name,
        create_ts: now,
        expire_ts: now + ctx.config.sessionTtlMs,
        last_used_ts: now,
      });
      return ok(raw);
    },
  );

  app.post('/api/logout', { config: { access: 'user' }, schema: { response: { 200: OkNull } } }, async (req) => {
    await deleteSession(db, req.user.tokenId);
    return ok(null);
  });

  app.get('/api/me', { config: { access: 'user' }, schema: { response: okResponse(UserInfo) } }, async (req) => {
    const user = await findUserById(db, req.user.id);
    if (!user) throw unauthorized();
    return ok(presentUser(user));
  });

  app.post(
    '/api/me',
    { config: { access: 'user' }, schema: { body: UpdateMeBody, response: okResponse(UserInfo) } },
    async (req, reply) => {
      const user = await findUserById(db, req.user.id);
      if (!user) throw unauthorized();
      const patch: UserPatch = { update_ts: Date.now() };
      if (req.body.password !== undefined) {
        if (!isValidPassword(req.body.password)) throw badRequest('password must be at least 5 characters');
        await checkCurrentPassword(req.body.current_password, user, req.ip, reply);
        patch.password_hash = await hashPassword(req.body.password);
      }
      if (req.body.email !== undefined) {
        if (req.body.email !== '' && !isValidEmail(req.body.email)) throw badRequest('e-mail format is invalid');
        patch.email = req.body.email;
      }
      if (req.body.setting !== undefined) {
        patch.settings = JSON.stringify({ ...JSON.parse(user.settings || '{}'), ...req.body.setting });
      }
      await inTransaction(db, async (trx) => {
        await updateUser(trx, user.id, patch);
        // A new password ends every other session of this user (and, when asked, its API tokens); the one that
        // changed it stays signed in.
        if (patch.password_hash)
          await endSessions(trx, user.id, {
            keepTokenId: req.user.tokenId,
            apiTokens: req.body.revoke_tokens === true,
          });
      });
      return ok(presentUser((await findUserById(db, user.id))!));
    },
  );

  /** Changing the password needs the current one; wrong guesses count like failed sign-ins. */
  async function checkCurrentPassword(
    current: string | undefined,
    user: { username: string; password_hash: string },
    ip: string,
    reply: { header(k: string, v: string): unknown },
  ) {
    if (!current) throw badRequest('current_password is required to change the password');
    const wait = limiter.retryAfter(user.username, ip);
    if (wait > 0) throw tooMany(reply, wait, 'failed sign-in attempts');
    if (!(await verifyUserPassword(current, user.password_hash))) {
      limiter.fail(user.username, ip);
      throw forbidden('current password is incorrect');
    }
  }

  app.put(
    '/api/users',
    { config: { access: 'public' }, schema: { body: SignUpBody, response: okResponse(UserInfo) } },
    async (req, reply) => {
      if (!(await signupOpen(db))) throw forbidden('sign-up is closed; ask an administrator for an account');
      const wait = signups.take(req.ip);
      if (wait > 0) throw tooMany(reply, wait, 'sign-ups from this address');
      const username = req.body.username.trim();
      if (!isValidUsername(username)) throw badRequest('Please enter the correct username');
      if (!isValidPassword(req.body.password)) throw badRequest('password must be at least 5 characters');
      if (req.body.email && !isValidEmail(req.body.email)) throw badRequest('e-mail format is invalid');
      if (await findUserByUsername(db, username)) throw conflict('username already exists');
      try {
        const row = await insertUser(db, {
          username,
          passwordHash: await hashPassword(req.body.password),
          role: 'normal',
          email: req.body.email,
        });
        return ok(presentUser(row));
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('username already exists');
        throw err;
      }
    },
  );

  app.put(
    '/api/actions',
    { config: { access: 'user' }, schema: { body: ActionBody, response: { 200: OkNull } } },
    async (req) => {
      const params = JSON.stringify(req.body.params ?? {});
      if (params.length > 4000) throw badRequest('action params are too large (4000 bytes at most)');
      await insertAction(db, req.user.id, req.body.type, params);
      return ok(null);
    },
  );

  const summary = { querystring: ActionSummaryQuery, response: okResponse(Type.Array(ActionSummaryRow)) };
  app.get('/api/actions/summary', { config: { access: 'admin' }, schema: summary }, async (req) => {
    const since = Date.now() - (req.query.days ?? 30) * 86400_000;
    return ok(await summarizeActions(db, since));
  });
};

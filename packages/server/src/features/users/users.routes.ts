import {
  AddUserBody,
  LooseIdParams,
  OkNull,
  UpdateUserBody,
  UserInfo,
  UserListQuery,
  isValidEmail,
  isValidPassword,
  isValidUsername,
  okResponse,
} from '@crawldeck/shared';
import { Type } from '@sinclair/typebox';
import type { Feature } from '../../context.ts';
import { ok, paging } from '../../http/envelope.ts';
import { badRequest, conflict } from '../../http/errors.ts';
import { hashPassword } from '../session/passwords.ts';
import { findUserByUsername, insertUser, isUniqueViolation, listUsersPage, presentUser } from './users.store.ts';
import { changeUser, removeUser } from './users.service.ts';

const admin = { access: 'admin' as const };

/** User administration: administrators only, enforced here whatever the console shows. */
export const usersFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  app.get(
    '/api/users',
    { config: admin, schema: { querystring: UserListQuery, response: okResponse(Type.Array(UserInfo)) } },
    async (req) => {
      const { rows, total } = await listUsersPage(db, paging(req.query));
      return ok(rows.map(presentUser), total);
    },
  );

  app.put(
    '/api/users-add',
    { config: admin, schema: { body: AddUserBody, response: okResponse(UserInfo) } },
    async (req) => {
      const username = req.body.username.trim();
      if (!isValidUsername(username)) throw badRequest('Please enter the correct username');
      if (!isValidPassword(req.body.password)) throw badRequest('password must be at least 5 characters');
      const email = req.body.email?.trim() ?? '';
      if (email && !isValidEmail(email)) throw badRequest('e-mail format is invalid');
      if (await findUserByUsername(db, username)) throw conflict('username already exists');
      try {
        const row = await insertUser(db, {
          username,
          passwordHash: await hashPassword(req.body.password),
          role: req.body.role ?? 'normal',
          email,
        });
        return ok(presentUser(row));
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('username already exists');
        throw err;
      }
    },
  );

  app.post(
    '/api/users/:id',
    { config: admin, schema: { params: LooseIdParams, body: UpdateUserBody, response: okResponse(UserInfo) } },
    async (req) => {
      return ok(presentUser(await changeUser(ctx, req.user, req.params.id, req.body)));
    },
  );

  app.delete(
    '/api/users/:id',
    { config: admin, schema: { params: LooseIdParams, response: { 200: OkNull } } },
    async (req) => {
      await removeUser(ctx, req.user, req.params.id);
      return ok(null);
    },
  );
};

import { ApiToken, CreateTokenBody, CreatedToken, LooseIdParams, OkNull, newId, okResponse } from '@crawldeck/shared';
import { Type } from '@sinclair/typebox';
import type { Feature } from '../../context.ts';
import { iso, ok } from '../../http/envelope.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { hashToken, newRawToken } from '../../http/auth.ts';
import { tokenFilter } from '../../policies/index.ts';
import {
  countApiTokens,
  deleteApiToken,
  insertToken,
  listApiTokens,
  replaceApiToken,
  type TokenRow,
} from './tokens.store.ts';

const MAX_TOKENS_PER_USER = 100;

function present(row: TokenRow): ApiToken {
  return {
    _id: row.id,
    name: row.name,
    create_ts: iso(row.create_ts),
    last_used_ts: iso(row.last_used_ts),
    expire_ts: iso(row.expire_ts),
  };
}

/**
 * Settings → API tokens: personal tokens of kind `api` in the `tokens` table, so they work in `Authorization`
 * (raw or Bearer) for every call like a session token. Only the SHA-256 is stored; the raw token is shown once.
 * A token made with `replace` takes the place of the user's earlier tokens of its name, so a tool that signs in
 * again and again (the CLI) keeps one token instead of piling them up.
 */
export const tokensFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const user = { access: 'user' as const };

  app.get('/api/tokens', { config: user, schema: { response: okResponse(Type.Array(ApiToken)) } }, async (req) => {
    const rows = await listApiTokens(db, tokenFilter(req.user));
    return ok(rows.map(present), rows.length);
  });

  app.put(
    '/api/tokens',
    { config: user, schema: { body: CreateTokenBody, response: okResponse(CreatedToken) } },
    async (req) => {
      const name = req.body.name.trim();
      if (!name) throw badRequest('a token needs a name');
      const replace = req.body.replace === true;
      if ((await countApiTokens(db, tokenFilter(req.user), replace ? name : undefined)) >= MAX_TOKENS_PER_USER)
        throw conflict(`at most ${MAX_TOKENS_PER_USER} API tokens per user; revoke unused ones`);
      const now = Date.now();
      const raw = newRawToken();
      const row: TokenRow = {
        id: newId(now),
        user_id: req.user.id,
        token_hash: hashToken(raw),
        kind: 'api',
        name,
        create_ts: now,
        expire_ts: req.body.expire_days ? now + req.body.expire_days * 86400_000 : null,
        last_used_ts: null,
      };
      await (replace ? replaceApiToken(db, tokenFilter(req.user), row) : insertToken(db, row));
      return ok({ ...present(row), token: raw });
    },
  );

  app.delete(
    '/api/tokens/:id',
    { config: user, schema: { params: LooseIdParams, response: { 200: OkNull } } },
    async (req) => {
      if (!(await deleteApiToken(db, tokenFilter(req.user), req.params.id))) throw notFound('API token');
      return ok(null);
    },
  );
};

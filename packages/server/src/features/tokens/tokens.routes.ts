import { CreateTokenBody, newId, type ApiToken, type CreatedToken } from '@crawldeck/shared';
import { LooseIdParams } from '@crawldeck/shared';
import type { Selectable } from 'kysely';
import type { Feature } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { iso, ok } from '../../http/envelope.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { hashToken, newRawToken } from '../../http/auth.ts';

const MAX_TOKENS_PER_USER = 100;

function present(row: Selectable<DB['tokens']>): ApiToken {
  return { _id: row.id, name: row.name, create_ts: iso(row.create_ts), last_used_ts: iso(row.last_used_ts), expire_ts: iso(row.expire_ts) };
}

/**
 * Settings → API tokens: personal tokens of kind `api` in the `tokens` table, so they work in `Authorization`
 * (raw or Bearer) for every call like a session token. Only the SHA-256 is stored; the raw token is shown once.
 */
export const tokensFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  app.get('/api/tokens', { config: { access: 'user' } }, async (req) => {
    const rows = await db.selectFrom('tokens').selectAll().where('user_id', '=', req.user.id).where('kind', '=', 'api').orderBy('create_ts', 'desc').execute();
    return ok(rows.map(present), rows.length);
  });

  app.put('/api/tokens', { config: { access: 'user' }, schema: { body: CreateTokenBody } }, async (req) => {
    const name = req.body.name.trim();
    if (!name) throw badRequest('a token needs a name');
    const count = await db.selectFrom('tokens').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', req.user.id).where('kind', '=', 'api').executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_TOKENS_PER_USER) throw conflict(`at most ${MAX_TOKENS_PER_USER} API tokens per user; revoke unused ones`);
    const now = Date.now();
    const raw = newRawToken();
    const row = {
      id: newId(now),
      user_id: req.user.id,
      token_hash: hashToken(raw),
      kind: 'api' as const,
      name,
      create_ts: now,
      expire_ts: req.body.expire_days ? now + req.body.expire_days * 86400_000 : null,
      last_used_ts: null,
    };
    await db.insertInto('tokens').values(row).execute();
    const created: CreatedToken = { ...present(row), token: raw };
    return ok(created);
  });

  app.delete('/api/tokens/:id', { config: { access: 'user' }, schema: { params: LooseIdParams } }, async (req) => {
    const res = await db.deleteFrom('tokens').where('id', '=', req.params.id).where('user_id', '=', req.user.id).where('kind', '=', 'api').executeTakeFirst();
    if (!Number(res.numDeletedRows)) throw notFound('API token');
    return ok(null);
  });
};

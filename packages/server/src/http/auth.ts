import { createHash, randomBytes } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Role } from '@crawldeck/shared';
import type { Store } from '../store/db.ts';
import { forbidden, unauthorized } from './errors.ts';

export interface AuthUser {
  id: string;
  username: string;
  role: Role;
  tokenId: string;
  tokenKind: 'session' | 'api';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without a token (login, sign-up, version, setting, the node WebSocket with its own key). */
    public?: boolean;
    /** Minimum role; the server enforces it whatever the console shows. */
    role?: Role;
  }
  interface FastifyRequest {
    user: AuthUser;
  }
}

export const hashToken = (raw: string) => createHash('sha256').update(raw).digest('hex');
export const newRawToken = () => randomBytes(32).toString('base64url');

/** Accepts `Authorization: <token>` and `Authorization: Bearer <token>` (ARCHITECTURE.md). */
export function tokenFromRequest(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization?.trim();
  if (!header) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(header);
  return (m ? m[1] : header).trim() || undefined;
}

// Writing last_used_ts on every request would turn every read into a write; once a minute is enough for display.
const LAST_USED_GRANULARITY_MS = 60_000;

export async function resolveToken(store: Store, raw: string): Promise<AuthUser | undefined> {
  const now = Date.now();
  const row = await store.db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select(['tokens.id as token_id', 'tokens.kind', 'tokens.expire_ts', 'tokens.last_used_ts', 'users.id', 'users.username', 'users.role'])
    .where('tokens.token_hash', '=', hashToken(raw))
    .executeTakeFirst();
  if (!row || (row.expire_ts != null && row.expire_ts <= now)) return undefined;
  if (row.last_used_ts == null || now - row.last_used_ts > LAST_USED_GRANULARITY_MS) {
    await store.db.updateTable('tokens').set({ last_used_ts: now }).where('id', '=', row.token_id).execute();
  }
  return { id: row.id, username: row.username, role: row.role, tokenId: row.token_id, tokenKind: row.kind };
}

/** Every /api route needs a valid token unless its config says `public`; `role: 'admin'` routes need an admin. */
export const authPlugin = fp(async (app: FastifyInstance, opts: { store: Store }) => {
  app.decorateRequest('user', null as unknown as AuthUser);
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    // The OpenAPI description documents the API; it holds no data, so it is readable without a token.
    if (!req.url.startsWith('/api/') || config?.public || req.url.startsWith('/api/openapi')) return;
    const raw = tokenFromRequest(req);
    const user = raw ? await resolveToken(opts.store, raw) : undefined;
    if (!user) throw unauthorized();
    req.user = user;
    if (config?.role === 'admin' && user.role !== 'admin') throw forbidden('forbidden: administrators only');
  });
});

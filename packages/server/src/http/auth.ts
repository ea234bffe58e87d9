import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { NODE_KEY_HEADER, type Role } from '@crawldeck/shared';
import type { Store } from '../store/db.ts';
import { forbidden, unauthorized } from './errors.ts';
import { findTokenWithUser, touchToken } from '../features/tokens/tokens.store.ts';
import { BasicAuth } from './basic-auth.ts';
import type { ThrottleOptions } from '../features/session/login-limiter.ts';
import { nodeCaller } from '../features/nodes/credentials.ts';
import { hashToken } from './keys.ts';

export interface AuthUser {
  id: string;
  username: string;
  role: Role;
  tokenId: string;
  /** `password`: a basic-auth request signed with the password itself (no token; tokenId is empty). */
  tokenKind: 'session' | 'api' | 'password';
}

/**
 * Who may call a route. Every route declares one; the master refuses to start when a route declares none.
 * - `public`: anyone (sign-in, sign-up, version, setting, the console files, the OpenAPI page).
 * - `user`: any signed-in user or API token; the handler's policy decides which rows they see.
 * - `admin`: administrators only.
 * - `node`: worker nodes, each by its own key in the node key header (never by a user token); the request then
 *   carries the node's id (`req.nodeId`). The shared node key only joins a new node, on the node socket.
 */
export type RouteAccess = 'public' | 'user' | 'admin' | 'node';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** EventSource cannot set headers: the token may also come as `?token=` (redacted from the logs). */
    queryToken?: boolean;
    /** Set for node WebSocket routes: the handler checks the key so it can close with a code the node reports. */
    nodeSocket?: boolean;
    /** Also accepts HTTP basic authentication (user name with password or API token), for tools that speak only it. */
    basicAuth?: boolean;
  }
  interface FastifyRequest {
    user: AuthUser;
    /** On `node` routes: the node whose own key signed the request. */
    nodeId: string;
  }
  interface FastifyInstance {
    /** Access given to every route registered in this plugin context (third-party plugins that take no route config). */
    routeAccess: RouteAccess | null;
  }
}

export { hashToken, newRawToken, nodeKeyMatches } from './keys.ts';

/** Accepts `Authorization: <token>` and `Authorization: Bearer <token>`. */
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
  const row = await findTokenWithUser(store.db, hashToken(raw));
  if (!row || (row.expire_ts != null && row.expire_ts <= now)) return undefined;
  if (row.last_used_ts == null || now - row.last_used_ts > LAST_USED_GRANULARITY_MS) {
    await touchToken(store.db, row.token_id, now);
  }
  return { id: row.id, username: row.username, role: row.role, tokenId: row.token_id, tokenKind: row.kind };
}

const ACCESS = new Set<RouteAccess>(['public', 'user', 'admin', 'node']);

/**
 * Gives `access` to every route that `register` adds (for third-party plugins that take no route config, such as
 * the console's static files and the OpenAPI page). Their decorators (e.g. `reply.sendFile`) stay on `app`.
 */
export async function registerWithAccess(
  app: FastifyInstance,
  access: RouteAccess,
  register: (app: FastifyInstance) => PromiseLike<unknown>,
) {
  app.routeAccess = access;
  try {
    await register(app);
  } finally {
    app.routeAccess = null;
  }
}

export interface AuthOptions {
  store: Store;
  nodeKey: string;
  /** Throttling of wrong basic-auth passwords, as of failed sign-ins. */
  basicLimits: ThrottleOptions;
}

/**
 * Deny by default. Checks act on the route the router matched (after it decoded the path), never on the raw URL,
 * so `/%61pi/…` gets exactly the checks of `/api/…`. Paths that match no route only ever reach the not-found handler.
 */
export const authPlugin = fp(async (app: FastifyInstance, opts: AuthOptions) => {
  const basic = new BasicAuth(opts.store, opts.basicLimits, resolveToken);
  app.decorateRequest('user', null as unknown as AuthUser);
  app.decorateRequest('nodeId', '');
  app.decorate('routeAccess', null);
  app.addHook('onRoute', function (this: FastifyInstance, route: RouteOptions) {
    const access = route.config?.access ?? this.routeAccess;
    if (!access || !ACCESS.has(access)) {
      throw new Error(
        `route ${String(route.method)} ${route.url} declares no access (config.access: public | user | admin | node)`,
      );
    }
    route.config = { ...route.config, access, nodeSocket: access === 'node' && route.websocket === true };
  });
  app.addHook('onRequest', async (req) => {
    // The not-found handler is public: it only answers 404 (or the console page for deep links).
    if (req.is404) return;
    const config = req.routeOptions.config;
    const access = config.access;
    if (access === 'public') return;
    if (access === 'node') {
      // The node socket checks the key itself so it can close with a code the node reports.
      if (config.nodeSocket && req.headers.upgrade?.toLowerCase() === 'websocket') return;
      const caller = await nodeCaller(opts.store.db, opts.nodeKey, req.headers[NODE_KEY_HEADER]);
      if (caller?.kind === 'joining')
        throw unauthorized("unauthorized: the shared node key only joins a node; use the node's own key");
      if (!caller) throw unauthorized('unauthorized: bad node key');
      req.nodeId = caller.nodeId;
      return;
    }
    if (access !== 'user' && access !== 'admin') throw unauthorized();
    const credentials = config.basicAuth ? BasicAuth.credentials(req) : undefined;
    if (credentials) {
      req.user = await basic.user(req, credentials.username, credentials.password);
      if (access === 'admin' && req.user.role !== 'admin') throw forbidden('forbidden: administrators only');
      return;
    }
    let raw = tokenFromRequest(req);
    if (!raw && config.queryToken) {
      const q = req.query as { token?: unknown } | undefined;
      if (typeof q?.token === 'string' && q.token) raw = q.token;
    }
    const user = raw ? await resolveToken(opts.store, raw) : undefined;
    if (!user) throw unauthorized();
    req.user = user;
    if (access === 'admin' && user.role !== 'admin') throw forbidden('forbidden: administrators only');
  });
});

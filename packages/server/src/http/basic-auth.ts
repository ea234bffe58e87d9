import type { FastifyRequest } from 'fastify';
import type { Store } from '../store/db.ts';
import { HttpError, unauthorized } from './errors.ts';
import { LoginThrottle, type ThrottleOptions } from '../features/session/login-limiter.ts';
import { verifyUserPassword } from '../features/session/passwords.ts';
import { findUserByUsername } from '../features/users/users.store.ts';
import type { AuthUser } from './auth.ts';

/**
 * HTTP basic authentication, for the few routes that serve tools which only speak it (the Scrapyd-compatible web
 * service): the user name with either the user's password or one of the user's API tokens. Wrong guesses count
 * like failed sign-ins and slow the same (user name, address) pair down.
 */
export class BasicAuth {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly store: Store,
    limits: ThrottleOptions,
    private readonly resolveToken: (store: Store, raw: string) => Promise<AuthUser | undefined>,
  ) {
    this.throttle = new LoginThrottle(limits);
  }

  /** The `Basic` credentials of the request, or undefined when it carries another kind of Authorization. */
  static credentials(req: FastifyRequest): { username: string; password: string } | undefined {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization?.trim() ?? '');
    if (!m) return undefined;
    const text = Buffer.from(m[1], 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon < 0) return undefined;
    return { username: text.slice(0, colon), password: text.slice(colon + 1) };
  }

  async user(req: FastifyRequest, username: string, password: string): Promise<AuthUser> {
    const wait = this.throttle.retryAfter(username, req.ip);
    if (wait > 0) throw new HttpError(429, `too many failed sign-in attempts; try again in ${wait} s`);
    // An API token is one hashed lookup; it counts only for the user it belongs to.
    const byToken = password ? await this.resolveToken(this.store, password) : undefined;
    if (byToken && byToken.username === username) {
      this.throttle.succeed(username, req.ip);
      return byToken;
    }
    const row = username ? await findUserByUsername(this.store.db, username) : undefined;
    if (!(await verifyUserPassword(password, row?.password_hash)) || !row) {
      this.throttle.fail(username, req.ip);
      throw unauthorized('username or password is incorrect');
    }
    this.throttle.succeed(username, req.ip);
    return { id: row.id, username: row.username, role: row.role, tokenId: '', tokenKind: 'password' };
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startMaster, type RunningMaster } from '../src/master.ts';
import type { MasterConfig } from '../src/config.ts';
import { insertUser } from '../src/features/users/users.store.ts';
import { hashPassword } from '../src/features/session/passwords.ts';

/**
 * API test harness: a real master over real HTTP on a real store. The Vitest projects `api-sqlite` and
 * `api-postgres` run the same files with CRAWLDECK_TEST_STORE set to each engine, except the files whose subject is
 * not the store (`apiOnce` in vitest.config.ts), which run on SQLite only.
 */
export const ENGINE: 'sqlite' | 'postgres' = process.env.CRAWLDECK_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
export const PG_ADMIN_URL = process.env.CRAWLDECK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const ADMIN_PASSWORD = 'admin-pass';

/** A fresh PostgreSQL database for one test file, dropped afterwards. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const prefix = process.env.CRAWLDECK_TEST_DB_PREFIX ?? 'crawldeck_t';
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      // pg's Pool.end() resolves before its connections have closed; let them go first, so FORCE does not hit
      // a connection that is still ending (its FATAL 57P01 would surface as an unhandled error).
      for (let i = 0; i < 40; i++) {
        const r = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (!r.rows[0]?.n) break;
        await new Promise((res) => setTimeout(res, 50));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface ApiResult<T = any> {
  status: number;
  body: {
    status: 'ok' | 'error';
    message: string;
    data: T;
    total?: number;
    error?: string;
    code?: string;
    params?: Record<string, unknown>;
  };
  headers: Headers;
}

export interface TestMaster {
  url: string;
  master: RunningMaster;
  dataDir: string;
  adminToken: string;
  /** JSON call with an optional token (default: the admin's; pass null for none). */
  api<T = any>(
    method: string,
    route: string,
    opts?: { token?: string | null; body?: unknown; query?: Record<string, unknown> },
  ): Promise<ApiResult<T>>;
  login(username: string, password: string): Promise<string>;
  /** Creates a normal user (or an admin) in the store and returns its session token. */
  createUser(username: string, password?: string, role?: 'normal' | 'admin'): Promise<string>;
  /**
   * Stops this master and starts a new one on the same store (same data dir, same PostgreSQL database), as a
   * restart would. `url` and `master` then point at the new one; tokens stay valid. `downMs` waits in between.
   */
  restart(overrides?: Partial<MasterConfig>, downMs?: number): Promise<void>;
  /** Starts another master on the same store (PostgreSQL multi-master); its close() keeps the store. */
  startPeer(overrides?: Partial<MasterConfig>): Promise<TestMaster>;
  close(): Promise<void>;
}

export async function startTestMaster(overrides: Partial<MasterConfig> = {}): Promise<TestMaster> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-test-'));
  const database = ENGINE === 'postgres' ? await createTestDatabase() : undefined;
  return openTestMaster(dataDir, database?.url ?? '', overrides, async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

async function openTestMaster(
  dataDir: string,
  databaseUrl: string,
  overrides: Partial<MasterConfig>,
  dropStore: () => Promise<void>,
): Promise<TestMaster> {
  const boot = (extra: Partial<MasterConfig> = {}) =>
    startMaster({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      databaseUrl,
      adminPassword: ADMIN_PASSWORD,
      embeddedNode: false,
      logLevel: 'warn',
      // test sites and Git remotes are served on loopback; the SSRF tests pass '' to get the production refusals
      outboundAllow: '127.0.0.0/8,::1/128',
      ...overrides,
      ...extra,
    });
  let master = await boot();
  let url = master.url;

  async function api<T>(
    method: string,
    route: string,
    opts: { token?: string | null; body?: unknown; query?: Record<string, unknown> } = {},
  ): Promise<ApiResult<T>> {
    const u = new URL(`/api${route}`, url);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined) u.searchParams.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    const token = opts.token === undefined ? adminToken : opts.token;
    const headers: Record<string, string> = {};
    if (token) headers.authorization = token;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(u, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: ApiResult<T>['body'];
    try {
      body = JSON.parse(text);
    } catch {
      body = { status: 'error', message: text, data: undefined as T, error: text };
    }
    return { status: res.status, body, headers: res.headers };
  }

  async function login(username: string, password: string): Promise<string> {
    const r = await api<string>('POST', '/login', { token: null, body: { username, password } });
    if (r.status !== 200) throw new Error(`login ${username} failed: ${r.status} ${r.body.error}`);
    return r.body.data;
  }

  let adminToken = '';
  adminToken = await login('admin', ADMIN_PASSWORD);

  const peers: TestMaster[] = [];
  const self: TestMaster = {
    get url() {
      return url;
    },
    get master() {
      return master;
    },
    dataDir,
    adminToken,
    api,
    login,
    async createUser(username, password = 'password1', role = 'normal') {
      // Written to the store: anonymous sign-up is rate-limited per address, and tests create many users.
      await insertUser(master.store.db, { username, passwordHash: await hashPassword(password), role });
      return login(username, password);
    },
    async restart(extra = {}, downMs = 0) {
      await master.close();
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      master = await boot(extra);
      url = master.url;
    },
    async startPeer(extra = {}) {
      const peerDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-test-peer-'));
      const peer = await openTestMaster(peerDir, databaseUrl, { ...overrides, ...extra }, async () =>
        rmSync(peerDir, { recursive: true, force: true }),
      );
      peers.push(peer);
      return peer;
    },
    async close() {
      for (const p of peers) await p.close().catch(() => undefined);
      await master.close();
      await dropStore();
    },
  };
  return self;
}

/**
 * A master on a PostgreSQL database the caller owns (e.g. a test's own PostgreSQL server); its close() removes
 * only its data dir. Start several on one URL for a multi-master setup.
 */
export async function startTestMasterOn(
  databaseUrl: string,
  overrides: Partial<MasterConfig> = {},
): Promise<TestMaster> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-test-'));
  return openTestMaster(dataDir, databaseUrl, overrides, async () => rmSync(dataDir, { recursive: true, force: true }));
}

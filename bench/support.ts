/**
 * What the benchmarks that start a master inside their own process share: a master on a scratch data directory
 * (SQLite, or a PostgreSQL database of its own that is dropped afterwards), signing in, API calls that fail loudly
 * with the server's message, and waiting for a task's end or for the embedded node to come online. The fleet
 * benchmarks start their master as a separate process instead (fleet-support.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMaster, type RunningMaster } from '../packages/server/src/master.ts';
import type { MasterConfig } from '../packages/server/src/config.ts';
import { createTestDatabase } from '../packages/server/test/harness.ts';

/** The administrator's password of every benchmark master. */
export const BENCH_PASSWORD = 'bench-admin';

/** Where a master answers: a started master, or its base URL. */
type At = { url: string } | string;
const base = (at: At) => (typeof at === 'string' ? at : at.url);

/** Signs in by password; answers the token, or throws with the server's message. */
export async function signIn(at: At, username: string, password: string): Promise<string> {
  return (await api(at, null, 'POST', '/login', { username, password })).data as string;
}

/** One call of `/api…`: the answer's JSON envelope, or an error with the route, status and message. */
export async function api(at: At, token: string | null, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base(at)}/api${route}`, {
    method,
    headers: {
      ...(token ? { authorization: token } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${json.error}`);
  return json;
}

/** Adds a normal user (as the administrator) and signs them in; answers their id and token. */
export async function addUser(at: At, adminToken: string, username: string, password: string) {
  const id = (await api(at, adminToken, 'PUT', '/users-add', { username, password })).data._id as string;
  return { id, token: await signIn(at, username, password) };
}

const ENDED = ['finished', 'error', 'cancelled', 'abnormal'];

/** Polls a task until it has ended; answers it as GET /tasks/{id} shows it. */
export async function waitDone(at: At, token: string, id: string): Promise<any> {
  for (;;) {
    const t = (await api(at, token, 'GET', `/tasks/${id}`)).data;
    if (ENDED.includes(t.status)) return t;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits (up to 10 s) until a node is online: the embedded node registers shortly after the master starts. */
export async function waitNodeOnline(at: At, token: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await api(at, token, 'GET', '/nodes')).data.some((n: { status: string }) => n.status === 'online')) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no node came online within 10 s');
}

export interface BenchMasterOptions extends Partial<MasterConfig> {
  engine?: 'sqlite' | 'postgres';
  /** Name prefix of the scratch data directory. */
  scratch: string;
}

/**
 * Starts a master in this process (port 0, the bench password), signs the administrator in and runs `fn`; the
 * master, its PostgreSQL database and its data directory are gone afterwards, whether `fn` succeeded or not.
 */
export async function withMaster(
  { engine = 'sqlite', scratch, ...overrides }: BenchMasterOptions,
  fn: (m: RunningMaster, adminToken: string) => Promise<void>,
): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `${scratch}-`));
  const database = engine === 'postgres' ? await createTestDatabase() : undefined;
  try {
    const m = await startMaster({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      databaseUrl: database?.url ?? '',
      adminPassword: BENCH_PASSWORD,
      logLevel: 'warn',
      ...overrides,
    });
    try {
      await fn(m, await signIn(m, 'admin', BENCH_PASSWORD));
    } finally {
      await m.close();
    }
  } finally {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

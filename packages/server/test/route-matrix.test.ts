import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_KEY_HEADER, newId } from '@crawldeck/shared';
import { hashToken } from '../src/http/auth.ts';
import { startTestMaster, type TestMaster } from './harness.ts';
import { ROUTES, type Fixture, type RouteRow } from './route-matrix.table.ts';

/**
 * Walks every route of the OpenAPI document with every kind of caller and several spellings of each path, and
 * checks the answer against the access table. Spellings the router decodes (`/%61pi/…`) must get exactly the
 * checks of the plain path; the others (double slash, dot segments, other case) must never reach a handler.
 */
type Caller =
  'anonymous' | 'garbage' | 'revoked' | 'expired' | 'userB' | 'owner' | 'apiToken' | 'admin' | 'nodeKey' | 'ownNodeKey';
const CALLERS: Caller[] = [
  'anonymous',
  'garbage',
  'revoked',
  'expired',
  'nodeKey',
  'ownNodeKey',
  'userB',
  'owner',
  'apiToken',
  'admin',
];
const UNAUTHENTICATED = new Set<Caller>(['anonymous', 'garbage', 'revoked', 'expired', 'nodeKey', 'ownNodeKey']);
/** A node's own key (the shared node key, `nodeKey`, only joins a node on its socket, which is not in this table). */
const OWN_NODE_KEY = 'own-key-of-the-matrix-node-0123456789abcdef';
const BOGUS = 'ffffffffffffffffffffffff';

type Expect = 'ok' | 401 | 403 | 'hidden';

function expected(row: RouteRow, caller: Caller): Expect {
  if (row.access === 'public') return 'ok';
  if (row.access === 'node') return caller === 'ownNodeKey' ? 'ok' : 401;
  if (UNAUTHENTICATED.has(caller)) return 401;
  if (row.access === 'admin') return caller === 'admin' ? 'ok' : 403;
  if (row.access === 'owner' && caller === 'userB') return 'hidden';
  return 'ok';
}

function accepts(row: RouteRow, exp: Expect, status: number): boolean {
  if (exp === 'ok')
    return (status >= 200 && status < 500 && status !== 401 && status !== 403) || !!row.alsoOk?.includes(status);
  // User A's private spider and what hangs off it answer user B exactly as an unknown id (404); A's project, which
  // everyone sees, refuses the change (403). With `hides`, an answer without user A's data is right too (a filtered
  // list); the body is checked below.
  if (exp === 'hidden')
    return status === 404 || (row.id === 'project' && status === 403) || (!!row.hides && status >= 200 && status < 300);
  return status === exp;
}

/** The plain path and spellings of it: the first two decode to the same route, the rest match no route. */
function variants(p: string): string[] {
  // Routes outside /api (the Prometheus scrape target) are called as they are.
  if (!p.startsWith('/api/')) return [p];
  const [, , second, ...rest] = p.split('/');
  const tail = rest.length ? `/${rest.join('/')}` : '';
  const enc = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;
  return [
    p,
    `/%61pi/${second}${tail}`,
    `/api/${enc(second[0])}${second.slice(1)}${tail}`,
    `/${p}`,
    `/api//${second}${tail}`,
    `/api/./${second}${tail}`,
    `/api/zz/../${second}${tail}`,
    `/API/${second}${tail}`,
    `/api/${second[0].toUpperCase()}${second.slice(1)}${tail}`,
  ];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function call(
  base: string,
  method: string,
  rawPath: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path: rawPath,
        headers: {
          ...headers,
          ...(payload !== undefined
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
            : {}),
        },
      },
      (res) => {
        // Live streams never end: their status and first bytes are the answer.
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, text: '' });
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${rawPath} did not answer within 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

let m: TestMaster;
const fx = {} as Record<Fixture, string>;
const tokens = {} as Record<Caller, string | undefined>;

beforeAll(async () => {
  m = await startTestMaster({ signupsPerHour: 1_000_000, loginFreeFailures: 1_000_000 });
  const a = await m.createUser('matrix_a', 'password-a');
  const b = await m.createUser('matrix_b', 'password-b');
  const must = async (method: string, route: string, token: string, body?: unknown) => {
    const r = await m.api(method, route, { token, body });
    if (r.status !== 200) throw new Error(`fixture ${method} ${route}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  // Sign-up is closed on a fresh master; the public sign-up route is walked with it open.
  await must('POST', '/setting', m.adminToken, { allow_signup: 'Y' });
  fx.spider = (await must('PUT', '/spiders', a, { name: 'a-private', cmd: 'echo ok', is_public: false }))._id;
  fx.task = (await must('PUT', '/tasks', a, { spider_id: fx.spider, run_type: 'random' }))[0];
  fx.schedule = (
    await must('PUT', '/schedules', a, {
      name: 'a-schedule',
      cron: '0 0 0 1 1 *',
      spider_id: fx.spider,
      timezone: 'UTC',
      enabled: false,
    })
  )._id;
  fx.project = (await must('PUT', '/projects', a, { name: 'a-project' }))._id;
  const apiToken = await must('PUT', '/tokens', a, { name: 'a-script' });
  fx.token = apiToken._id;
  fx.userB = (await must('GET', '/me', b))._id;
  fx.webhook = (
    await must('PUT', '/webhooks', m.adminToken, {
      name: 'hook',
      url: 'http://127.0.0.1:9/hook',
      events: ['task_finished'],
    })
  )._id;
  fx.variable = (await must('PUT', '/variable', m.adminToken, { key: 'matrix_var', value: 'v' }))._id;
  fx.bogus = BOGUS;
  // A deploy of A's private spider, as a node records it after copying the files.
  fx.deploy = newId();
  await m.master.store.db
    .insertInto('deploys')
    .values({
      id: fx.deploy,
      spider_id: fx.spider,
      node_id: BOGUS,
      task_id: fx.task,
      files_total: 1,
      files_changed: 1,
      bytes: 1,
      error: '',
      create_ts: Date.now(),
      finish_ts: Date.now(),
    })
    .execute();
  await m.master.store.db
    .insertInto('node_credentials')
    .values({
      node_id: newId(),
      key_hash: hashToken(OWN_NODE_KEY),
      create_ts: Date.now(),
      last_used_ts: null,
      revoke_ts: null,
    })
    .execute();
  const revoked = await must('PUT', '/tokens', a, { name: 'revoked' });
  await must('DELETE', `/tokens/${revoked._id}`, a);
  const expiredRaw = 'expired-token-of-user-a-0123456789abcdef';
  const now = Date.now();
  const aId = (await must('GET', '/me', a))._id;
  await m.master.store.db
    .insertInto('tokens')
    .values({
      id: newId(),
      user_id: aId,
      token_hash: hashToken(expiredRaw),
      kind: 'session',
      name: 'expired',
      create_ts: now - 7200_000,
      expire_ts: now - 3600_000,
      last_used_ts: null,
    })
    .execute();
  Object.assign(tokens, {
    anonymous: undefined,
    garbage: 'garbage-token',
    revoked: revoked.token,
    expired: expiredRaw,
    nodeKey: undefined,
    ownNodeKey: undefined,
    userB: b,
    owner: a,
    apiToken: apiToken.token,
    admin: m.adminToken,
  });
}, 120_000);

afterAll(async () => {
  agent.destroy();
  await m?.close();
});

describe('route matrix', () => {
  it('answers every route, caller and path spelling as the access table says', async () => {
    const doc = (await (await fetch(`${m.url}/api/openapi/json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((meth) => `${meth.toUpperCase()} ${p}`),
    );
    expect(
      documented.filter((r) => !ROUTES[r]),
      'routes without a row in the access table',
    ).toEqual([]);
    expect(
      Object.keys(ROUTES).filter((r) => !documented.includes(r)),
      'table rows for routes that do not exist',
    ).toEqual([]);

    // Deletions last, so the fixtures stay for every other row.
    const order = [...documented].sort((x, y) => Number(x.startsWith('DELETE')) - Number(y.startsWith('DELETE')));
    const failures: string[] = [];
    let checked = 0;
    let n = 0;
    for (const key of order) {
      const row = ROUTES[key];
      const [method, template] = key.split(' ');
      for (const caller of CALLERS) {
        const exp = expected(row, caller);
        // Allowed callers delete a resource that does not exist, so the fixtures survive for the rest.
        const f =
          method === 'DELETE' && exp === 'ok'
            ? (Object.fromEntries(Object.keys(fx).map((k) => [k, BOGUS])) as Record<Fixture, string>)
            : fx;
        const concrete = template.replace('{id}', f[row.id ?? 'bogus']).replace('{hash}', '0'.repeat(64));
        const qs = row.query ? `?${new URLSearchParams(row.query(f))}` : '';
        for (const [vi, p] of variants(concrete).entries()) {
          let token = tokens[caller];
          if (row.spendsSession && token && exp === 'ok' && caller !== 'apiToken')
            token = await m.login(
              caller === 'admin' ? 'admin' : caller === 'owner' ? 'matrix_a' : 'matrix_b',
              caller === 'admin' ? 'admin-pass' : caller === 'owner' ? 'password-a' : 'password-b',
            );
          const headers: Record<string, string> = token ? { authorization: token } : {};
          if (caller === 'nodeKey') headers[NODE_KEY_HEADER] = m.master.config.nodeKey;
          if (caller === 'ownNodeKey') headers[NODE_KEY_HEADER] = OWN_NODE_KEY;
          const body = row.body ? row.body(f, n++) : method === 'GET' || method === 'DELETE' ? undefined : {};
          const r = await call(m.url, method, p + qs, headers, body).catch((err: Error) => ({
            status: 0,
            text: `no answer: ${err.message}`,
          }));
          checked++;
          // A spelling the router does not decode must match no route at all.
          const ok = accepts(row, exp, r.status) || (vi > 0 && r.status === 404);
          let leak = '';
          if (ok && row.hides && caller === 'userB' && r.status < 300) {
            const seen = row.hides.filter((h) => r.text.includes(fx[h]));
            if (seen.length) leak = ` shows user A's ${seen.join(', ')}`;
          }
          if (ok && !leak) continue;
          const what = `${key} ${caller}`;
          failures.push(`${what} via ${p}: expected ${exp}, got ${r.status}${leak} ${r.text.slice(0, 160)}`);
        }
      }
    }
    const variantCount = variants('/api/x').length;
    console.log(
      `route matrix: ${documented.length} routes × ${CALLERS.length} callers × ${variantCount} spellings = ${checked} calls checked`,
    );
    if (failures.length) console.log(`route matrix failures (${failures.length}):\n${failures.join('\n')}`);
    expect(failures).toEqual([]);
  }, 600_000);
});

import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { makeZip } from './spider-helpers.ts';
import { REQUEST_TIMEOUT_MS, requestsFor, rng, type Op, type Req, type Schema } from './fuzz.requests.ts';

/**
 * Malformed input for every route of the OpenAPI document: each path, query and body field in turn gets huge
 * numbers, Infinity, NaN, negative and fractional numbers, empty and very long strings, NUL bytes, wrong types,
 * nested objects and unicode; bodies also come as broken JSON, and the upload routes as broken multipart forms.
 * Every answer must be below 500 and arrive in time, and a refused (4xx) mutation must leave the store as it was.
 */

let m: TestMaster;
let normal: string;
let sent = 0;
const failures: string[] = [];
const fiveXX: string[] = [];
/**
 * Routes that relay an outside service (the package index a search asks): when that service cannot be reached from
 * the test machine the honest answer is 502 Bad Gateway, which says the master itself is fine.
 */
const RELAYS_OUTSIDE = /^\/api\/env-packages\/search$/;

async function send(r: Req): Promise<number> {
  sent++;
  const headers: Record<string, string> = {};
  const token = r.token === undefined ? m.adminToken : r.token;
  if (token) headers.authorization = token;
  if (r.body !== undefined) headers['content-type'] = r.contentType ?? 'application/json';
  const url = `${m.url}${r.path}${r.query ? `?${r.query}` : ''}`;
  const label = `${r.method} ${url.slice(m.url.length, m.url.length + 160)} ${r.body?.slice(0, 80) ?? ''}`;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), REQUEST_TIMEOUT_MS);
  try {
    const res = await fetch(url, { method: r.method, headers, body: r.body, signal: ac.signal });
    if (res.headers.get('content-type')?.includes('text/event-stream')) {
      ac.abort();
      return res.status;
    }
    const text = await res.text();
    if (res.status >= 500 && !(res.status === 502 && RELAYS_OUTSIDE.test(r.path)))
      fiveXX.push(`${res.status} ${label} → ${text.slice(0, 200)}`);
    return res.status;
  } catch (err) {
    failures.push(`no answer in ${REQUEST_TIMEOUT_MS} ms (${(err as Error).message}): ${label}`);
    return 0;
  } finally {
    clearTimeout(timer);
  }
}

/** Row count and a checksum of every table; columns a read may touch (token last use) are left out. */
async function snapshot(): Promise<Record<string, string>> {
  const db = m.master.store.db;
  const out: Record<string, string> = {};
  for (const t of await db.introspection.getTables()) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(t.name)}`.execute(db);
    const lines = rows
      .map((row) =>
        JSON.stringify(
          Object.entries(row).filter(([k]) => k !== 'last_used_ts'),
          (_, v: unknown) =>
            typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? createHash('sha1').update(v).digest('hex') : v,
        ),
      )
      .sort();
    out[t.name] = `${rows.length}:${createHash('sha1').update(lines.join('\n')).digest('hex').slice(0, 12)}`;
  }
  return out;
}

/** Sends one route's requests; when none was accepted, the store must be unchanged. */
async function batch(label: string, reqs: Req[], concurrency = 4): Promise<void> {
  const mutating = reqs.some((r) => r.method !== 'GET');
  const before = mutating ? await snapshot() : undefined;
  let accepted = false;
  for (let i = 0; i < reqs.length; i += concurrency) {
    const statuses = await Promise.all(reqs.slice(i, i + concurrency).map(send));
    if (statuses.some((s) => s < 400)) accepted = true;
  }
  if (before && !accepted) {
    const after = await snapshot();
    const changed = Object.keys({ ...before, ...after }).filter((t) => before[t] !== after[t]);
    if (changed.length) failures.push(`${label}: refused requests changed the store (${changed.join(', ')})`);
  }
}

let spiderId = '';
let doc: { paths: Record<string, Record<string, Op>> };

beforeAll(async () => {
  m = await startTestMaster();
  normal = await m.createUser('fuzz-normal');
  spiderId = (await m.api('PUT', '/spiders', { body: { name: 'fuzz-target' } })).body.data._id;
  doc = await (await fetch(`${m.url}/api/openapi/json`)).json();
});
afterAll(async () => {
  await m?.close();
});

/** Routes whose well-formed call ends the caller's session. */
const SKIP = new Set(['POST /api/logout']);

describe(`fuzz (${ENGINE})`, () => {
  it('documents a bound for every parameter and body field', () => {
    const unbounded: string[] = [];
    const check = (where: string, s: Schema | undefined) => {
      if (!s) return;
      if (s.anyOf) return s.anyOf.forEach((x) => check(where, x));
      if (
        s.type === 'string' &&
        s.maxLength === undefined &&
        !s.enum &&
        s.const === undefined &&
        !/^\^[^*+]*\$$/.test(s.pattern ?? '')
      )
        unbounded.push(`${where}: string without maxLength`);
      if ((s.type === 'integer' || s.type === 'number') && (s.maximum === undefined || s.minimum === undefined))
        unbounded.push(`${where}: number without minimum/maximum`);
      if (s.type === 'array') {
        if (s.maxItems === undefined) unbounded.push(`${where}: array without maxItems`);
        check(`${where}[]`, s.items);
      }
      for (const [k, v] of Object.entries(s.properties ?? {})) check(`${where}.${k}`, v);
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) check(`${method.toUpperCase()} ${path} ${p.in} ${p.name}`, p.schema);
        check(`${method.toUpperCase()} ${path} body`, op.requestBody?.content?.['application/json']?.schema);
      }
    }
    expect(unbounded).toEqual([]);
  });

  it(
    'answers malformed input on every route with a 4xx, in time, without changing the store',
    { timeout: 240_000 },
    async () => {
      const pick = rng(20261123);
      const ids: Record<string, string> = {};
      for (const path of Object.keys(doc.paths))
        if (/^\/api\/(spiders|config_spiders)\/\{id\}/.test(path)) ids[path] = spiderId;
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          const key = `${method.toUpperCase()} ${path}`;
          if (SKIP.has(key) || method === 'head') continue;
          await batch(key, requestsFor(path, method.toUpperCase(), op, ids, pick));
        }
      }
      // A normal user sends the query and path values to every list and read.
      for (const [path, ops] of Object.entries(doc.paths)) {
        if (!ops.get) continue;
        const reqs = requestsFor(path, 'GET', ops.get, ids, pick).filter(() => pick() < 0.2);
        await batch(
          `GET ${path} (normal user)`,
          reqs.map((r) => ({ ...r, token: normal })),
        );
      }
      console.log(`fuzz ${ENGINE}: ${sent} requests, ${fiveXX.length} answered 5xx, ${failures.length} other failures`);
      expect(fiveXX.slice(0, 40)).toEqual([]);
      expect(failures.slice(0, 40)).toEqual([]);
    },
  );

  it('refuses broken multipart forms on the upload routes with a 4xx and a message', { timeout: 120_000 }, async () => {
    const b = 'fuzzboundary';
    const part = (name: string, body: string, filename?: string) =>
      `--${b}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${body}\r\n`;
    const zip = (await makeZip([{ name: 'main.py', content: 'print(1)' }])).toString('latin1');
    const forms: [string, string][] = [
      ['no boundary', part('file', zip, 'a.zip')],
      ['cut short', `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK`],
      ['garbage', 'this is not a form at all'],
      ['empty', ''],
      ['file sent as a text field', part('name', 'fuzz-mp-1') + part('file', 'not a file') + `--${b}--\r\n`],
      ['file in another field', part('name', 'fuzz-mp-2') + part('other', zip, 'a.zip') + `--${b}--\r\n`],
      [
        'two files',
        part('name', 'fuzz-mp-3') + part('file', zip, 'a.zip') + part('file', zip, 'b.zip') + `--${b}--\r\n`,
      ],
      ['not a zip', part('name', 'fuzz-mp-4') + part('file', 'hello', 'a.zip') + `--${b}--\r\n`],
      ['too many fields', Array.from({ length: 60 }, (_, i) => part(`f${i}`, 'x')).join('') + `--${b}--\r\n`],
      ['NUL in a field', part('name', 'fuzz\u0000mp') + part('file', zip, 'a.zip') + `--${b}--\r\n`],
      ['bad JSON field', part('name', 'fuzz-mp-5') + part('envs', '[{') + `--${b}--\r\n`],
      [
        'wrong field type',
        part('name', 'fuzz-mp-6') + part('retries', 'Infinity') + part('is_public', '{}') + `--${b}--\r\n`,
      ],
      ['prototype field', part('__proto__', 'x') + part('file', zip, 'a.zip') + `--${b}--\r\n`],
    ];
    const routes = [
      ['PUT', '/api/spiders'],
      ['POST', `/api/spiders/${spiderId}/upload`],
      ['POST', '/api/sites/import'],
    ];
    const before = await snapshot();
    const answers: string[] = [];
    for (const [method, path] of routes) {
      for (const [label, body] of forms) {
        if (label === 'NUL in a field' && path.endsWith('/upload')) continue; // the upload takes only the file
        const ct = label === 'no boundary' ? 'multipart/form-data' : `multipart/form-data; boundary=${b}`;
        const res = await fetch(`${m.url}${path}`, {
          method,
          headers: { authorization: m.adminToken, 'content-type': ct },
          body: Buffer.from(body, 'latin1'),
        });
        const reply = (await res.json()) as { error?: string };
        if (res.status < 400 || res.status >= 500 || !reply.error)
          answers.push(`${method} ${path} ${label}: ${res.status} ${reply.error ?? ''}`);
      }
    }
    expect(answers).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a zip that expands past the default 64 MiB before storing anything', async () => {
    const bomb = await makeZip([{ name: 'zeros.bin', content: Buffer.alloc(65 * 1024 * 1024) }]);
    const before = await snapshot();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bomb)]), 'bomb.zip');
    const res = await fetch(`${m.url}/api/spiders/${spiderId}/upload`, {
      method: 'POST',
      headers: { authorization: m.adminToken },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/expands to more than 64 MiB/);
    expect(await snapshot()).toEqual(before);
  });
});

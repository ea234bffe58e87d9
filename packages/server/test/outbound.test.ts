import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestMaster, type TestMaster } from './harness.ts';
import { startGitHttpServer, type GitHttpServer } from './support/git-http.ts';

/**
 * The master as it runs in production (no allow-list): what it fetches for users never reaches loopback,
 * private or metadata addresses, redirects included; the admin's allow-list opens chosen ranges.
 */

interface Site {
  url: string;
  port: number;
  hits: number;
  close(): Promise<void>;
}

async function serve(host: string, handler: http.RequestListener): Promise<Site> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    site.hits++;
    handler(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  const site: Site = {
    url: `http://${host}:${port}`,
    port,
    hits: 0,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return site;
}

const INTERNAL = '<html><body><ul><li class="row"><b>internal-secret-page</b></li></ul></body></html>';
const spiderfile = (startUrl: string, settings: Record<string, unknown> = {}) => ({
  start_url: startUrl,
  start_stage: 'list',
  settings: { ROBOTSTXT_OBEY: false, ...settings },
  stages: [{ name: 'list', is_list: true, list_css: 'li.row', fields: [{ name: 'text', css: 'b' }] }],
});

let m: TestMaster;
let internal: Site;
let git: GitHttpServer;
let user: string;
let spiderId: string;

beforeAll(async () => {
  process.env.CRAWLDECK_GIT_AUTO_SYNC_S = '0';
  [m, internal, git] = await Promise.all([
    startTestMaster({ outboundAllow: '' }),
    serve('127.0.0.1', (_req, res) => res.end(INTERNAL)),
    startGitHttpServer(),
  ]);
  git.createRepo('inner', { 'main.py': 'print(1)\n' });
  user = await m.createUser('mallory', 'mallory-pass');
  const created = await m.api('PUT', '/config_spiders', {
    token: user,
    body: { name: 'probe', template: 'list', start_url: `${internal.url}/` },
  });
  expect(created.status, created.body.error).toBe(200);
  spiderId = created.body.data._id;
});
afterAll(async () => {
  await m?.close();
  await internal?.close();
  await git?.close();
});

const setAllow = async (ranges: string) =>
  expect((await m.api('POST', '/setting', { body: { outbound_allow: ranges } })).status).toBe(200);

describe('outbound requests for users: internal addresses refused', () => {
  it('refuses previews and field suggestions of loopback, mapped, private and metadata addresses with a 422', async () => {
    const targets = [
      `${internal.url}/`,
      `http://localhost:${internal.port}/`,
      `http://[::ffff:127.0.0.1]:${internal.port}/`,
      `http://[::1]:${internal.port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://100.64.0.1/',
      'http://[fd00:ec2::254]/',
      'http://0.0.0.0/',
    ];
    for (const url of targets) {
      const r = await m.api('POST', `/spiders/${spiderId}/preview_crawl`, {
        token: user,
        body: { spiderfile: spiderfile(url) },
      });
      expect(r.status, url).toBe(422);
      expect(r.body.error, url).toMatch(
        /refused to connect to .*(loopback|private|linkLocal|uniqueLocal|carrierGradeNat|unspecified) addresses are not reachable/,
      );
    }
    const fields = await m.api('POST', `/spiders/${spiderId}/extract_fields`, {
      token: user,
      body: { url: `${internal.url}/` },
    });
    expect(fields.status).toBe(422);
    expect(fields.body.error).toMatch(/refused to connect to 127\.0\.0\.1: loopback/);
    expect(JSON.stringify(fields.body)).not.toContain('internal-secret-page');
    expect(internal.hits).toBe(0);
  });

  it('refuses a Git import of a loopback URL and leaves no spider behind', async () => {
    for (const url of [`${git.url}/inner.git`, `http://localhost:${git.url.split(':').pop()}/inner.git`]) {
      const r = await m.api('POST', '/spiders/import/github', { token: user, body: { url } });
      expect(r.status, url).toBe(422);
      expect(r.body.error).toMatch(/refused to connect to .*loopback/);
    }
    expect((await m.api('GET', '/spiders', { token: user, query: { keyword: 'inner' } })).body.data.list).toHaveLength(
      0,
    );
  });

  it('refuses a redirect from an allowed address to a host name that resolves to loopback', async () => {
    // 127.0.0.2 plays a public host: only its /32 is allowed; it redirects to `localhost` (127.0.0.1 / ::1)
    const redirector = await serve('127.0.0.2', (req, res) => {
      res.writeHead(302, { location: `http://localhost:${internal.port}${req.url}` }).end();
    });
    try {
      await setAllow('127.0.0.2/32');
      const r = await m.api('POST', `/spiders/${spiderId}/preview_crawl`, {
        token: user,
        body: { spiderfile: spiderfile(`${redirector.url}/list`) },
      });
      expect(r.status).toBe(422);
      expect(r.body.error).toMatch(/refused to connect to localhost \((127\.0\.0\.1|::1)\): loopback/);
      expect(redirector.hits).toBeGreaterThan(0);

      // git never follows a redirect (to this or any other host)
      const imported = await m.api('POST', '/spiders/import/github', {
        token: user,
        body: { url: `${redirector.url}/inner.git` },
      });
      expect(imported.status).toBe(422);
      expect(internal.hits).toBe(0);
    } finally {
      await setAllow('');
      await redirector.close();
    }
  });

  it('imports through a host name once its checked address is allowed', async () => {
    // only 127.0.0.1 is allowed; `localhost` may also resolve to ::1: git is pinned to the checked 127.0.0.1
    await setAllow('127.0.0.1/32');
    try {
      const port = git.url.split(':').pop();
      const r = await m.api('POST', '/spiders/import/github', {
        token: user,
        body: { url: `http://localhost:${port}/inner.git`, name: 'pinned' },
      });
      expect(r.status, r.body.error).toBe(200);
      expect(r.body.data.git_url).toBe(`http://localhost:${port}/inner.git`);
    } finally {
      await setAllow('');
    }
  });

  it('refuses webhook deliveries to private addresses unless the allow-list opens them', async () => {
    const receiver = await serve('127.0.0.1', (_req, res) => res.end('ok'));
    try {
      const hook = await m.api('PUT', '/webhooks', {
        body: { name: 'local', url: `${receiver.url}/hook`, events: ['task_finished'] },
      });
      expect(hook.status, hook.body.error).toBe(200);
      const refused = await m.api('POST', `/webhooks/${hook.body.data._id}/test`);
      expect(JSON.stringify(refused.body)).toMatch(/refused to connect to 127\.0\.0\.1: loopback/);
      expect(receiver.hits).toBe(0);
      await setAllow('127.0.0.0/8');
      const delivered = await m.api('POST', `/webhooks/${hook.body.data._id}/test`);
      expect(delivered.status, delivered.body.error).toBe(200);
      expect(receiver.hits).toBe(1);
    } finally {
      await setAllow('');
      await receiver.close();
    }
  });

  it('validates the allow-list and keeps it admin-only', async () => {
    const bad = await m.api('POST', '/setting', { body: { outbound_allow: '10.0.0.0/8, not-a-range' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/not-a-range/);
    expect((await m.api('POST', '/setting', { token: user, body: { outbound_allow: '0.0.0.0/0' } })).status).toBe(403);
    expect((await m.api('GET', '/system/setting')).body.data.outbound_allow).toBe('');
  });
});

describe('package search and data-source tests use the same policy, and never show a credential', () => {
  const PASS = 'index-pa55-word';
  const withAuth = (url: string) => url.replace('http://', `http://crawler:${PASS}@`);
  const expectNoCredential = (body: unknown) => {
    const text = JSON.stringify(body);
    expect(text).not.toContain(PASS);
    expect(text).not.toContain(Buffer.from(`crawler:${PASS}`).toString('base64'));
  };
  const setIndex = async (pip: string, npm = '') =>
    expect(
      (
        await m.api('POST', '/env-settings', {
          body: { pip_index_url: pip, pip_extra_index_url: '', npm_registry: npm },
        })
      ).status,
    ).toBe(200);

  it('refuses a package index on loopback, link-local or metadata addresses unless the allow-list opens it', async () => {
    const before = internal.hits;
    const cases: [string, RegExp][] = [
      [withAuth(`${internal.url}/simple/`), /refused to connect to 127\.0\.0\.1: loopback/],
      [withAuth('http://169.254.169.254/simple/'), /refused to connect to 169\.254\.169\.254: linkLocal/],
      [withAuth(`http://localhost:${internal.port}/simple/`), /refused to connect to localhost .*loopback/],
    ];
    try {
      for (const [index, said] of cases) {
        await setIndex(index, index.replace('/simple/', '/npm'));
        for (const target of ['pip', 'npm']) {
          const r = await m.api('GET', '/env-packages/search', { query: { target, q: 'cdtiny' } });
          expect(r.status, `${target} ${index}`).toBe(422);
          expect(r.body.error).toMatch(said);
          expectNoCredential(r.body);
        }
      }
      expect(internal.hits).toBe(before);
      await setAllow('127.0.0.1/32');
      await setIndex(withAuth(`${internal.url}/simple/`));
      const opened = await m.api('GET', '/env-packages/search', { query: { target: 'pip', q: 'cdtiny' } });
      expect(opened.status, opened.body.error).toBe(200);
      expect(internal.hits).toBe(before + 1);
      // An index that is allowed but does not answer: the error names no password either.
      await setIndex(withAuth('http://127.0.0.1:1/simple/'));
      const down = await m.api('GET', '/env-packages/search', { query: { target: 'pip', q: 'cdtiny' } });
      expect(down.status).toBe(502);
      expect(down.body.error).toMatch(/the package index did not answer/);
      expectNoCredential(down.body);
    } finally {
      await setAllow('');
      await setIndex('');
    }
  });

  it('refuses a data-source test of loopback or metadata addresses unless the allow-list opens it', async () => {
    const body = (host: string) => ({
      name: 'probe',
      type: 'postgres',
      host,
      port: 1,
      database: 'x',
      username: 'u',
      password: PASS,
    });
    for (const [host, said] of [
      ['169.254.169.254', /refused to connect to 169\.254\.169\.254: linkLocal/],
      ['127.0.0.1', /refused to connect to 127\.0\.0\.1: loopback/],
      ['localhost', /refused to connect to localhost .*loopback/],
      ['[::1]', /refused to connect to ::1: loopback/],
    ] as const) {
      const r = await m.api('POST', '/data-sources-test', { body: body(host) });
      expect(r.status, host).toBe(422);
      expect(r.body.error, host).toMatch(said);
      expectNoCredential(r.body);
    }
    await setAllow('127.0.0.0/8');
    try {
      const r = await m.api('POST', '/data-sources-test', { body: body('127.0.0.1') });
      expect(r.status, r.body.error).toBe(200);
      expect(r.body.data).toMatchObject({ ok: false });
      expect(r.body.data.error).toContain('ECONNREFUSED');
      expectNoCredential(r.body);
    } finally {
      await setAllow('');
    }
  });
});

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

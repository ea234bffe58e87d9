import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from './harness.ts';
import { waitFor, waitNodes } from './tasks.helpers.ts';
import { makeZip } from './spider-helpers.ts';
import { basic, client, deploy, writeProject } from './scrapyd.helpers.ts';

const PAGES = 3;
const PER_PAGE = 5;
const admin = { username: 'admin', password: ADMIN_PASSWORD };

let m: TestMaster;
let site: Server;
let siteUrl = '';
let workDir = '';
// Held requests of the slow spider: answered when the test ends, so the job runs until it is cancelled.
const held: ServerResponse[] = [];
let slowStarted: () => void = () => undefined;
const slowRequested = new Promise<void>((r) => (slowStarted = r));

const PROJECT_FILES = {
  'shop/__init__.py': '',
  'shop/settings.py': [
    "BOT_NAME = 'shop'",
    "SPIDER_MODULES = ['shop.spiders']",
    'ROBOTSTXT_OBEY = False',
    'TELNETCONSOLE_ENABLED = False',
    "REQUEST_FINGERPRINTER_IMPLEMENTATION = '2.7'",
  ].join('\n'),
  'shop/spiders/__init__.py': '',
  'shop/spiders/products.py': `import scrapy

class ProductsSpider(scrapy.Spider):
    name = 'products'

    def __init__(self, base=None, **kw):
        super().__init__(**kw)
        self.start_urls = [base + '/page/1']

    def parse(self, response):
        for li in response.css('li.p'):
            yield {'name': li.css('a::text').get(), 'job': self._job}
        nxt = response.css('a.next::attr(href)').get()
        if nxt:
            yield response.follow(nxt, self.parse)
`,
  'shop/spiders/slow.py': `import scrapy

class SlowSpider(scrapy.Spider):
    name = 'slow'

    def __init__(self, base=None, **kw):
        super().__init__(**kw)
        self.start_urls = [base + '/hang']

    def parse(self, response):
        pass
`,
};

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === '/hang') {
      held.push(res);
      slowStarted();
      return;
    }
    const n = Number(/^\/page\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    if (!n || n > PAGES) return void res.writeHead(404).end();
    const items = Array.from({ length: PER_PAGE }, (_, i) => `<li class="p"><a href="/p">P ${n}-${i}</a></li>`);
    const next = n < PAGES ? `<a class="next" href="/page/${n + 1}">next</a>` : '';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<ul>${items.join('')}</ul>${next}`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  m = await startTestMaster({ embeddedNode: true, scrapyd: true, scrapydPort: 0 });
  await waitNodes(m, 1);
  workDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-scrapyd-'));
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await m?.close();
  site?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** A call with basic auth; `form` goes as a urlencoded body (POST). */
async function call(url: string, auth: string | null, form?: Record<string, string> | [string, string][]) {
  const headers: Record<string, string> = auth ? { authorization: auth } : {};
  const res = await fetch(url, form ? { method: 'POST', headers, body: new URLSearchParams(form) } : { headers });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

const scrapydUrl = () => `${m.url}/scrapyd`;

/** One endpoint by fetch (cheaper than a Python process per call, for polls and the many refusals). */
async function sd(user: { username: string; password: string }, endpoint: string, params: Record<string, string>) {
  const auth = basic(user.username, user.password);
  const u = `${scrapydUrl()}/${endpoint}.json`;
  const get = ['daemonstatus', 'listprojects', 'listversions', 'listspiders', 'listjobs', 'status'].includes(endpoint);
  return (await call(get ? `${u}?${new URLSearchParams(params)}` : u, auth, get ? undefined : params)).json;
}

async function spiderId(name: string): Promise<string> {
  const r = await m.api('GET', '/spiders', { query: { keyword: name } });
  return (r.body.data.list as { _id: string; name: string }[]).find((s) => s.name === name)!._id;
}

describe('the Scrapyd web service with the real scrapyd-client', () => {
  // The steps build on each other: one project goes from deploy to deletion.
  it('deploys two versions with scrapyd-deploy; lists projects, versions and spiders', async () => {
    const dir = path.join(workDir, 'shop');
    writeProject(dir, `${scrapydUrl()}/`, 'admin', PROJECT_FILES);
    for (const version of ['v1', 'v2']) {
      const d = await deploy(dir, version, ADMIN_PASSWORD);
      expect(d.code, d.stderr).toBe(0);
      expect(JSON.parse(d.stdout)).toMatchObject({ status: 'ok', project: 'shop', version, spiders: 2 });
    }
    expect(await client(scrapydUrl(), admin, 'projects')).toEqual(['shop']);
    expect(await client(scrapydUrl(), admin, 'versions', 'shop')).toEqual(['v1', 'v2']);
    expect(await client(scrapydUrl(), admin, 'spiders', 'shop')).toEqual(['products', 'slow']);
  });

  it('schedules with an argument, a setting and a job id; the job ends as a task with its log and items', async () => {
    const args = [
      ['base', siteUrl],
      ['setting', 'BOT_NAME=crawldeckbot'],
      ['jobid', 'job-one'],
    ];
    expect(await client(scrapydUrl(), admin, 'schedule', 'shop', 'products', args)).toBe('job-one');
    await waitFor(
      'job-one to finish',
      async () => (await sd(admin, 'status', { job: 'job-one', project: 'shop' })).currstate === 'finished',
      60_000,
      250,
    );
    const jobs = await client(scrapydUrl(), admin, 'jobs', 'shop');
    expect(jobs.status).toBe('ok');
    const done = jobs.finished.find((j: { id: string }) => j.id === 'job-one');
    expect(done).toMatchObject({
      project: 'shop',
      spider: 'products',
      log_url: '/scrapyd/logs/shop/products/job-one.log',
      items_url: '/scrapyd/items/shop/products/job-one.jl',
    });
    const everywhere = await sd(admin, 'listjobs', {});
    expect(everywhere.finished).toEqual([expect.objectContaining({ id: 'job-one', project: 'shop' })]);
    expect(done.start_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
    expect(done.end_time >= done.start_time).toBe(true);

    const log = await call(`${m.url}${done.log_url}`, basic('admin', ADMIN_PASSWORD));
    expect(log.status).toBe(200);
    expect(log.text).toContain("'BOT_NAME': 'crawldeckbot'");
    expect(log.text).toContain('Spider closed (finished)');
    const items = await call(`${m.url}${done.items_url}`, basic('admin', ADMIN_PASSWORD));
    const lines = items.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; job: string });
    expect(lines).toHaveLength(PAGES * PER_PAGE);
    expect(new Set(lines.map((l) => l.job))).toEqual(new Set(['job-one']));

    // The job is an ordinary Crawldeck task: its command, status and items count as any other's.
    const id = await spiderId('shop');
    const tasks = (await m.api('GET', `/spiders/${id}/tasks`)).body.data as Record<string, unknown>[];
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ status: 'finished', result_count: PAGES * PER_PAGE });
    expect(tasks[0].cmd).toContain("scrapy crawl 'products' -a '_job=job-one' -a 'base=");
  });

  it('cancels a running job (prevstate running), then has nothing left to cancel', async () => {
    const slowJob = await client(scrapydUrl(), admin, 'schedule', 'shop', 'slow', [['base', siteUrl]]);
    expect(slowJob).toMatch(/^[0-9a-f]{32}$/);
    await slowRequested;
    await waitFor(
      'the slow job to run',
      async () => (await sd(admin, 'status', { job: slowJob })).currstate === 'running',
    );
    const running = (await sd(admin, 'listjobs', { project: 'shop' })).running;
    expect(running).toEqual([expect.objectContaining({ id: slowJob, spider: 'slow', pid: expect.any(Number) })]);
    expect(await client(scrapydUrl(), admin, 'cancel', 'shop', slowJob)).toMatchObject({ prevstate: 'running' });
    await waitFor(
      'the slow job to end',
      async () => (await sd(admin, 'status', { job: slowJob })).currstate === 'finished',
    );
    expect(await sd(admin, 'cancel', { project: 'shop', job: slowJob })).toMatchObject({ prevstate: null });
  });

  it('deletes a version, then the project with its spider', async () => {
    const id = await spiderId('shop');
    expect(await sd(admin, 'delversion', { project: 'shop', version: 'nope' })).toMatchObject({
      status: 'error',
      message: "version 'nope' not found",
    });
    expect(await client(scrapydUrl(), admin, 'delversion', 'shop', 'v1')).toMatchObject({ status: 'ok' });
    expect((await sd(admin, 'listversions', { project: 'shop' })).versions).toEqual(['v2']);
    expect(await client(scrapydUrl(), admin, 'delproject', 'shop')).toMatchObject({ status: 'ok' });
    expect((await sd(admin, 'listprojects', {})).projects).toEqual([]);
    expect((await m.api('GET', `/spiders/${id}`)).status).toBe(404);
  });
});

/** An egg as setuptools builds it: the packages and EGG-INFO naming the settings module. */
function egg(pkg: string, spiders: string[]): Promise<Buffer> {
  return makeZip([
    { name: `${pkg}/__init__.py`, content: '' },
    { name: `${pkg}/settings.py`, content: `SPIDER_MODULES = ['${pkg}.spiders']\nTELNETCONSOLE_ENABLED = False\n` },
    { name: `${pkg}/spiders/__init__.py`, content: '' },
    ...spiders.map((s) => ({
      name: `${pkg}/spiders/${s}.py`,
      content: `import scrapy\n\nclass S(scrapy.Spider):\n    name = '${s}'\n    start_urls = []\n`,
    })),
    { name: 'EGG-INFO/PKG-INFO', content: 'Metadata-Version: 2.1\nName: project\nVersion: 1.0\n' },
    { name: 'EGG-INFO/entry_points.txt', content: `[scrapy]\nsettings = ${pkg}.settings\n` },
  ]);
}

async function addVersion(auth: string, project: string, version: string, body: Buffer) {
  const form = new FormData();
  form.set('project', project);
  form.set('version', version);
  form.set('egg', new Blob([new Uint8Array(body)]), 'project.egg');
  const res = await fetch(`${scrapydUrl()}/addversion.json`, {
    method: 'POST',
    headers: { authorization: auth },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as any };
}

describe('who may use it', () => {
  it('asks for basic authentication and refuses a wrong password with 401', async () => {
    const none = await call(`${scrapydUrl()}/daemonstatus.json`, null);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Basic realm="Scrapyd"');
    expect(none.json).toMatchObject({ status: 'error' });
    const wrong = await call(`${scrapydUrl()}/daemonstatus.json`, basic('admin', 'not-the-password'));
    expect(wrong.status).toBe(401);
    const right = await call(`${scrapydUrl()}/daemonstatus.json`, basic('admin', ADMIN_PASSWORD));
    expect(right.status).toBe(200);
    expect(right.json).toMatchObject({ status: 'ok', pending: expect.any(Number), running: expect.any(Number) });
    expect(typeof right.json.node_name).toBe('string');
  });

  it("shows a normal user only what the policies allow: another user's project and jobs are unknown to them", async () => {
    await m.createUser('alice', 'alice-pass');
    const bobSession = await m.createUser('bob', 'bob-pass');
    const created = await m.api('PUT', '/tokens', { token: bobSession, body: { name: 'scrapyd' } });
    const bob = { username: 'bob', password: created.body.data.token as string };
    const alice = { username: 'alice', password: 'alice-pass' };
    // The API token stands in for the password, but only for its own user.
    expect((await call(`${scrapydUrl()}/listprojects.json`, basic('alice', bob.password))).status).toBe(401);

    const added = await addVersion(basic('alice', 'alice-pass'), 'private', 'r1', await egg('priv', ['one', 'two']));
    expect(added.json).toMatchObject({ status: 'ok', project: 'private', version: 'r1', spiders: 2 });
    expect(await client(scrapydUrl(), alice, 'projects')).toEqual(['private']);
    const job = await client(scrapydUrl(), alice, 'schedule', 'private', 'one', [['jobid', 'alice-job']]);
    expect(job).toBe('alice-job');

    expect(await client(scrapydUrl(), bob, 'projects')).toEqual([]);
    expect((await sd(bob, 'listversions', { project: 'private' })).versions).toEqual([]);
    const unknown = { status: 'error', message: "project 'private' not found" };
    expect(await sd(bob, 'listspiders', { project: 'private' })).toMatchObject(unknown);
    expect(await sd(bob, 'listjobs', { project: 'private' })).toMatchObject(unknown);
    expect(await sd(bob, 'schedule', { project: 'private', spider: 'one' })).toMatchObject(unknown);
    expect(await sd(bob, 'cancel', { project: 'private', job: 'alice-job' })).toMatchObject(unknown);
    expect(await sd(bob, 'delversion', { project: 'private', version: 'r1' })).toMatchObject(unknown);
    expect(await sd(bob, 'delproject', { project: 'private' })).toMatchObject(unknown);
    expect(await sd(bob, 'status', { job: 'alice-job' })).toMatchObject({ status: 'ok', currstate: null });
    // Bob's upload of the same name is a project of his own; Alice's stays as it was.
    const bobs = await addVersion(basic('bob', bob.password), 'private', 'b1', await egg('priv', ['mine']));
    expect(bobs.json).toMatchObject({ status: 'ok', spiders: 1 });
    expect((await sd(bob, 'listspiders', { project: 'private' })).spiders).toEqual(['mine']);
    expect((await sd(alice, 'listversions', { project: 'private' })).versions).toEqual(['r1']);
    expect(await sd(bob, 'delproject', { project: 'private' })).toMatchObject({ status: 'ok' });

    const log = await call(`${scrapydUrl()}/logs/private/one/alice-job.log`, basic('bob', bob.password));
    expect(log.status).toBe(404);
    expect(log.json).toMatchObject({ status: 'error', message: '/scrapyd/logs/private/one/alice-job.log not found' });
    const own = await call(`${scrapydUrl()}/logs/private/one/alice-job.log`, basic('alice', 'alice-pass'));
    expect(own.status).toBe(200);
    const wrongSpider = await call(`${scrapydUrl()}/logs/private/two/alice-job.log`, basic('alice', 'alice-pass'));
    expect(wrongSpider.status).toBe(404);

    const state = await sd(alice, 'status', { job: 'alice-job' });
    expect(['pending', 'running', 'finished']).toContain(state.currstate);
    await sd(alice, 'cancel', { project: 'private', job: 'alice-job' });
    await waitFor(
      "alice's job to end",
      async () => (await sd(alice, 'status', { job: 'alice-job' })).currstate === 'finished',
    );
    // Deleting the newest version brings the one before back as the project's files.
    const r2 = await addVersion(basic('alice', 'alice-pass'), 'private', 'r2', await egg('priv', ['one', 'three']));
    expect(r2.json).toMatchObject({ status: 'ok', spiders: 2 });
    expect(await sd(alice, 'delversion', { project: 'private', version: 'r2' })).toMatchObject({ status: 'ok' });
    expect((await sd(alice, 'listspiders', { project: 'private' })).spiders).toEqual(['one', 'two']);
    expect(await sd(alice, 'delproject', { project: 'private' })).toMatchObject({ status: 'ok' });
  });

  it("answers bad input with Scrapyd's own error messages", async () => {
    const auth = basic('admin', ADMIN_PASSWORD);
    const missing = await call(`${scrapydUrl()}/schedule.json`, auth, { project: 'x' });
    expect(missing).toMatchObject({
      status: 200,
      json: { status: 'error', message: "'spider' parameter is required" },
    });
    const noProject = await call(`${scrapydUrl()}/schedule.json`, auth, { project: 'nothing', spider: 's' });
    expect(noProject.json).toMatchObject({ status: 'error', message: "project 'nothing' not found" });
    const notZip = await addVersion(auth, 'p', 'v', Buffer.from('not a zip'));
    expect(notZip.json).toMatchObject({ message: 'egg is not a ZIP file (if using curl, use egg=@path not egg=path)' });
    const longName = await addVersion(auth, 'p'.repeat(101), 'v', await egg('priv', ['one']));
    expect(longName.json).toMatchObject({ status: 'error', message: 'project name is longer than 100 characters' });
    const noSettings = await addVersion(auth, 'p', 'v', await makeZip([{ name: 'p/__init__.py', content: '' }]));
    expect(noSettings.json.message).toMatch(/names no Scrapy settings/);
    const badArg = await call(`${scrapydUrl()}/schedule.json`, auth, { project: 'p', spider: 's', 'a b': '1' });
    expect(badArg.json.message).toMatch(/spider argument 'a b' is not allowed/);
    expect((await sd(admin, 'listprojects', {})).projects).toEqual([]);
  });
});

describe('its own port', () => {
  it('serves the same service at the root of CRAWLDECK_SCRAPYD_PORT, and nothing else', async () => {
    const own = m.master.scrapydUrl!;
    expect(own).toBeTruthy();
    const status = await call(`${own}/daemonstatus.json`, basic('admin', ADMIN_PASSWORD));
    expect(status).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(await client(own, admin, 'projects')).toEqual([]);
    expect((await call(`${own}/api/spiders`, basic('admin', ADMIN_PASSWORD))).status).toBe(404);
    expect((await call(`${own}/scrapyd/daemonstatus.json`, basic('admin', ADMIN_PASSWORD))).status).toBe(404);
  });
});

describe('off by default', () => {
  it('answers 404 under /scrapyd/ when the service is off', async () => {
    const off = await startTestMaster();
    try {
      expect(off.master.scrapydUrl).toBeUndefined();
      const r = await call(`${off.url}/scrapyd/daemonstatus.json`, basic('admin', ADMIN_PASSWORD));
      expect(r.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

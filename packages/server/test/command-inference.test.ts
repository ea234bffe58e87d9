import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { startGitHttpServer, type GitHttpServer } from './support/git-http.ts';
import { makeZip, multipart } from './spider-helpers.ts';
import { makeSpider, waitTask, allLog } from './tasks.helpers.ts';

let m: TestMaster;
let srv: GitHttpServer;

beforeAll(async () => {
  process.env.CRAWLDECK_GIT_AUTO_SYNC_S = '0';
  [m, srv] = await Promise.all([startTestMaster({ embeddedNode: true }), startGitHttpServer()]);
});
afterAll(async () => {
  await m?.close();
  await srv?.close();
});

const SCRAPY_PROJECT = {
  'scrapy.cfg': '[settings]\ndefault = demo.settings\n',
  'demo/__init__.py': '',
  'demo/settings.py': 'BOT_NAME = "demo"\nSPIDER_MODULES = ["demo.spiders"]\n',
  'demo/spiders/__init__.py': '',
};

describe('command inference', () => {
  it('a Git import of a Scrapy project gets `scrapy crawl`; running it needs the Scrapy spider name', async () => {
    const url = srv.createRepo('scrapy-demo', SCRAPY_PROJECT);
    const imp = await m.api('POST', '/spiders/import/github', { body: { url, type: 'github' } });
    expect(imp.status, imp.body.error).toBe(200);
    expect(imp.body.data).toMatchObject({ cmd: 'scrapy crawl', is_scrapy: true });
    const id = imp.body.data._id;

    const bare = await m.api('PUT', '/tasks', { body: { spider_id: id, run_type: 'random' } });
    expect(bare.status).toBe(400);
    expect(bare.body.error).toMatch(/choose the Scrapy spider to run/);
    const options = await m.api('PUT', '/tasks', { body: { spider_id: id, run_type: 'random', param: '-a tag=x' } });
    expect(options.status).toBe(400);
    // nothing was queued by the refused calls
    expect((await m.api('GET', '/tasks', { query: { spider_id: id } })).body.total).toBe(0);
  });

  it('a Git import of a plain Python repository gets `python3 main.py` and runs', async () => {
    const url = srv.createRepo('py-demo', { 'main.py': 'print("hello from main")\n', 'README.md': '# x\n' });
    const imp = await m.api('POST', '/spiders/import/github', { body: { url, type: 'github' } });
    expect(imp.status, imp.body.error).toBe(200);
    expect(imp.body.data.cmd).toBe('python3 main.py');
    const run = await m.api('PUT', '/tasks', { body: { spider_id: imp.body.data._id, run_type: 'random' } });
    expect(run.status, run.body.error).toBe(200);
    const task = await waitTask(m, run.body.data[0], ['finished', 'error'], 60_000);
    expect(task.status, task.error).toBe('finished');
    expect((await allLog(m, task._id)).map((l) => l.msg)).toContain('hello from main');
  });

  it('a zip upload infers the command (package.json start script, a single script) and never replaces a typed one', async () => {
    const node = await makeZip([
      { name: 'package.json', content: JSON.stringify({ name: 'x', scripts: { start: 'node index.js' } }) },
      { name: 'index.js', content: 'console.log(1)\n' },
    ]);
    const created = await multipart(m, 'PUT', '/spiders', { name: 'node-zip' }, node);
    expect(created.status, created.body.error).toBe(200);
    expect(created.body.data.cmd).toBe('npm start');

    const script = await makeZip([
      { name: 'run.sh', content: '#!/bin/sh\necho hi\n' },
      { name: 'data.txt', content: 'x' },
    ]);
    const empty = await makeSpider(m, 'no-cmd', '');
    const up = await multipart(m, 'POST', `/spiders/${empty}/upload`, {}, script);
    expect(up.status, up.body.error).toBe(200);
    expect(up.body.data.cmd).toBe('./run.sh');
    expect((await m.api('GET', `/spiders/${empty}`)).body.data.cmd).toBe('./run.sh');

    const typed = await makeSpider(m, 'typed-cmd', 'bash crawl.sh');
    const up2 = await multipart(m, 'POST', `/spiders/${typed}/upload`, {}, script);
    expect(up2.body.data.cmd).toBe('bash crawl.sh');
  });

  it('a spider without a command cannot be run: 400 with the reason, no task', async () => {
    const zip = await makeZip([{ name: 'notes.txt', content: 'nothing runnable' }]);
    const created = await multipart(m, 'PUT', '/spiders', { name: 'nothing' }, zip);
    expect(created.body.data.cmd).toBe('');
    const run = await m.api('PUT', '/tasks', { body: { spider_id: created.body.data._id, run_type: 'random' } });
    expect(run.status).toBe(400);
    expect(run.body.error).toMatch(/has no command to run/);
    expect((await m.api('GET', '/tasks', { query: { spider_id: created.body.data._id } })).body.total).toBe(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from '../../server/test/harness.ts';
import { runCli, type CliOptions } from './cli.helpers.ts';

let m: TestMaster;
let home: string;
let project: string;

/** Runs the real `crawldeck` executable with this test's home and config folder. */
const cli = (args: string[], opts: CliOptions = {}) => runCli(home, args, opts);

const SPIDER = `import scrapy


class NumbersSpider(scrapy.Spider):
    name = "numbers"
    start_urls = ["data:text/plain,hello"]

    def parse(self, response):
        count = int(getattr(self, "count", "3"))
        for i in range(count):
            self.logger.info("number %d of %s", i, getattr(self, "tag", "none"))
            yield {"n": i, "tag": getattr(self, "tag", "none")}
`;

function writeScrapyProject(root: string) {
  const files: Record<string, string> = {
    'scrapy.cfg': '[settings]\ndefault = counting.settings\n\n[deploy]\nproject = numbers_project\n',
    'counting/__init__.py': '',
    'counting/settings.py': 'BOT_NAME = "counting"\nSPIDER_MODULES = ["counting.spiders"]\nROBOTSTXT_OBEY = False\n',
    'counting/spiders/__init__.py': '',
    'counting/spiders/numbers.py': SPIDER,
    'counting/spiders/__pycache__/numbers.cpython-311.pyc': 'stale bytecode',
    '.git/HEAD': 'ref: refs/heads/main\n',
  };
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), content);
  }
}

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  home = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-cli-'));
  project = path.join(home, 'numbers-project');
  writeScrapyProject(project);
});
afterAll(async () => {
  await m?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('crawldeck CLI against a real master', () => {
  it('refuses work before login with a clear message', async () => {
    const r = await cli(['tasks']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not signed in: run `crawldeck login/);
  });

  it('login keeps an API token (never the password) in the user config, readable by the user only', async () => {
    const bad = await cli(['login', '--url', m.url, '-u', 'admin', '--password-stdin'], { input: 'wrong\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/username or password is incorrect/);

    const r = await cli(['login', '--url', m.url, '-u', 'admin', '--password-stdin'], { input: `${ADMIN_PASSWORD}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Signed in to .* as admin/);
    const file = path.join(home, 'cfg', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.url).toBe(m.url);
    expect(JSON.stringify(saved)).not.toContain(ADMIN_PASSWORD);
    // the stored token is an API token of the admin
    const tokens = await m.api('GET', '/tokens');
    expect(tokens.body.data.map((t: { name: string }) => t.name)).toContainEqual(
      expect.stringMatching(/^crawldeck CLI on /),
    );
  });

  it('deploy finds the Scrapy project from a folder inside it, creates the spider, then updates it', async () => {
    const r = await cli(['deploy', '--json', 'counting/spiders'], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created).toMatchObject({
      action: 'created',
      name: 'numbers_project',
      is_scrapy: true,
      cmd: 'scrapy crawl',
      files: 5,
    });
    const files = await m.api('GET', `/spiders/${created.id}/dir`, { query: { path: 'counting/spiders' } });
    expect(JSON.stringify(files.body.data)).not.toContain('__pycache__');

    writeFileSync(path.join(project, 'README.md'), '# numbers\n');
    const again = await cli(['deploy', project]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Updated spider numbers_project \(\w{24}\): 6 files, command: scrapy crawl/);
    expect((await m.api('GET', '/spiders', { query: { keyword: 'numbers_project' } })).body.data.list).toHaveLength(1);
  });

  it('deploy --src sets the source folder of a project in a sub-folder, which then runs there', async () => {
    const mono = path.join(project, '..', 'mono');
    writeScrapyProject(path.join(mono, 'crawler'));
    writeFileSync(path.join(mono, 'README.md'), '# several things\n');
    const r = await cli(['deploy', '--json', '--name', 'mono_cli', '--src', 'crawler', mono]);
    expect(r.code, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created).toMatchObject({ action: 'created', name: 'mono_cli', is_scrapy: true, cmd: 'scrapy crawl' });
    expect((await m.api('GET', `/spiders/${created.id}`)).body.data.src).toBe('crawler');
    const bad = await cli(['deploy', '--name', 'mono_cli', '--src', '../elsewhere', mono]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/source folder "\.\.\/elsewhere" must stay inside the spider's files/);
    const run = await cli(['run', 'mono_cli', '--crawl', 'numbers', '--follow']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/Task \w{24} finished \(3 results, 0 error lines\)/);
  });

  it('run --follow streams the log of a real Scrapy run and ends with its status; logs, tasks and results read it back', async () => {
    const r = await cli(['run', 'numbers_project', '-a', 'count=4', '-a', 'tag=cli', '--follow']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Started task (\w{24}) of numbers_project: scrapy crawl numbers -a count=4 -a tag=cli/);
    expect(r.stdout).toContain('number 3 of cli');
    expect(r.stderr).toMatch(/Task \w{24} finished \(4 results, 0 error lines\)/);
    const taskId = /Started task (\w{24})/.exec(r.stderr)![1];

    const log = await cli(['logs', taskId]);
    expect(log.code).toBe(0);
    expect(log.stdout).toContain('number 0 of cli');

    const list = JSON.parse((await cli(['tasks', '--json', '--spider', 'numbers_project'])).stdout);
    expect(list[0]).toMatchObject({ _id: taskId, status: 'finished', result_count: 4 });
    const table = await cli(['tasks']);
    expect(table.stdout).toMatch(new RegExp(`${taskId}.*numbers_project.*finished`));

    const json = JSON.parse((await cli(['results', taskId, '--format', 'json'])).stdout);
    expect(json).toEqual([0, 1, 2, 3].map((n) => ({ n, tag: 'cli' })));
    const csv = (await cli(['results', taskId, '--format', 'csv'])).stdout.trim().split(/\r?\n/);
    expect(csv).toEqual(['n,tag', '0,cli', '1,cli', '2,cli', '3,cli']);
  }, 120_000);

  it('a failing run exits 1; an unknown spider or node is named in the error', async () => {
    const r = await cli(['run', 'numbers_project', '--crawl', 'missing', '--follow']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Task \w{24} error/);
    const unknown = await cli(['run', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no spider named "nope"/);
    const noNode = await cli(['run', 'numbers_project', '--node', 'ghost']);
    expect(noNode.stderr).toMatch(/no node "ghost"/);
  }, 120_000);

  it('run --priority and --timeout set the queue priority and the maximum run time; bad values make no task', async () => {
    const r = await cli([
      'run',
      'numbers_project',
      '--crawl',
      'numbers',
      '--priority',
      '2',
      '--timeout',
      '600',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [taskId] = JSON.parse(r.stdout).task_ids as string[];
    const task = (await m.api('GET', `/tasks/${taskId}`)).body.data;
    expect(task.priority).toBe(2);
    expect(task.timeout_seconds).toBe(600);
    const total = (await m.api('GET', '/tasks', { query: { page_size: 1 } })).body.total;
    for (const bad of ['7', '0', '1.5', 'high']) {
      const refused = await cli(['run', 'numbers_project', '--crawl', 'numbers', '--priority', bad]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/--priority takes a whole number from 1 \(highest\) to 5 \(lowest\)/);
    }
    for (const bad of ['-5', '1.5', 'soon', '9999999999']) {
      const refused = await cli(['run', 'numbers_project', '--crawl', 'numbers', `--timeout=${bad}`]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/--timeout takes whole seconds from 0 \(no limit\)/);
    }
    expect((await m.api('GET', '/tasks', { query: { page_size: 1 } })).body.total).toBe(total);
  });

  it('nodes and schedules list what the master holds', async () => {
    const nodes = JSON.parse((await cli(['nodes', '--json'])).stdout);
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ is_master: true, status: 'online' });
    const spider = (await m.api('GET', '/spiders', { query: { keyword: 'numbers_project' } })).body.data.list[0];
    const s = await m.api('PUT', '/schedules', {
      body: { name: 'nightly', cron: '0 0 3 * * *', spider_id: spider._id, param: 'numbers' },
    });
    expect(s.status, s.body.error).toBe(200);
    const table = await cli(['schedules']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/nightly.*numbers_project.*0 0 3 \* \* \*/);
  });
});

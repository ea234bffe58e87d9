/**
 * Source folders: a Scrapy project in a sub-folder of a spider's files runs there, with the environment its own
 * requirements.txt asks for, on the master's node and a worker; a Git repository holding two Scrapy projects is
 * imported as two spiders that both run. Pages come from a shop on loopback, packages from a loopback pip index.
 */
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultWorkDir } from '@crawldeck/node/user-code';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';
import { startGitHttpServer, type GitHttpServer } from './support/git-http.ts';
import { startPackageIndexes, type PackageIndexes } from './support/package-index.ts';
import { PER_PAGE, startShopSite, TOTAL, type ShopSite } from './support/shop-site.ts';

const KEY = 'source-folder-node-key';
const workerWorkDir = path.join(os.tmpdir(), `crawldeck-src-work-${process.pid}`);
let m: TestMaster;
let worker: ChildNode;
let git: GitHttpServer;
let shop: ShopSite;
let indexes: PackageIndexes;

beforeAll(async () => {
  process.env.CRAWLDECK_GIT_AUTO_SYNC_S = '0';
  [m, git, shop, indexes] = await Promise.all([
    startTestMaster({ embeddedNode: true, nodeKey: KEY }),
    startGitHttpServer(),
    startShopSite(),
    startPackageIndexes({
      pip: { name: 'cdshelf', module: 'cdshelf', versions: ['3.1'] },
      npm: { name: 'cdshelf-js', versions: ['1.0.0'] },
    }),
  ]);
  worker = spawnNode(m.url, KEY, 'src-worker', ['--work-dir', workerWorkDir]);
  await waitNodes(m, 2, 60_000);
  const s = await m.api('POST', '/env-settings', {
    body: { pip_index_url: indexes.pipIndex, pip_extra_index_url: '', npm_registry: indexes.npmRegistry },
  });
  expect(s.status, s.body.error).toBe(200);
}, 120_000);

afterAll(async () => {
  worker?.proc.kill('SIGKILL');
  await Promise.all([m?.close(), git?.close(), shop?.close(), indexes?.close()]);
  if (worker) rmSync(worker.dataDir, { recursive: true, force: true });
  // The environments the master built for its tools sit in its own node's work dir.
  if (m) rmSync(defaultWorkDir(path.join(m.dataDir, 'node')), { recursive: true, force: true, maxRetries: 50 });
  rmSync(workerWorkDir, { recursive: true, force: true, maxRetries: 50, retryDelay: 100 });
});

/**
 * A Scrapy project under `dir` named `pkg` whose spider `name` reads the shop's product pages (all of them, or the
 * first only) and stores each product, with `extra` fields computed in Python.
 */
function scrapyProject(dir: string, pkg: string, name: string, follow: boolean, extra = '{}', head = '') {
  const at = (p: string) => (dir ? `${dir}/${p}` : p);
  return {
    [at('scrapy.cfg')]: `[settings]\ndefault = ${pkg}.settings\n`,
    [at(`${pkg}/__init__.py`)]: '',
    [at(`${pkg}/settings.py`)]: [
      `BOT_NAME = '${pkg}'`,
      `SPIDER_MODULES = ['${pkg}.spiders']`,
      'ROBOTSTXT_OBEY = False',
      'TELNETCONSOLE_ENABLED = False',
    ].join('\n'),
    [at(`${pkg}/spiders/__init__.py`)]: '',
    [at(`${pkg}/spiders/${name}.py`)]: `import scrapy
${head}

class S(scrapy.Spider):
    name = '${name}'

    def __init__(self, base=None, **kw):
        super().__init__(**kw)
        self.start_urls = [base + '/products?page=1']

    def parse(self, response):
        for li in response.css('li.product'):
            yield {'title': li.css('h2 a::text').get(), **${extra}}
        nxt = response.css('a.next::attr(href)').get()
        if ${follow ? 'nxt' : 'False'}:
            yield response.follow(nxt, self.parse)
`,
  };
}

const logText = (lines: { msg: string }[]) => lines.map((l) => l.msg).join('\n');
const spiderOf = async (id: string) => (await m.api('GET', `/spiders/${id}`)).body.data;

describe('source folders', () => {
  it('refuses a source folder outside the spider files with 400 and keeps a clean one', async () => {
    for (const src of ['../elsewhere', 'a/../../b', '/etc', 'C:\\x']) {
      const r = await m.api('PUT', '/spiders', { body: { name: `bad_src_${src.length}`, src } });
      expect(r.status, src).toBe(400);
      expect(r.body.error).toMatch(/source folder/);
    }
    const ok = await m.api('PUT', '/spiders', { body: { name: 'clean_src', src: './crawler//shop/' } });
    expect(ok.status, ok.body.error).toBe(200);
    expect((await spiderOf(ok.body.data._id)).src).toBe('crawler/shop');
  });

  it('runs a project in a sub-folder with its own requirements on both nodes, every item stored', async () => {
    const files = {
      'README.md': '# a monorepo\n',
      'requirements.txt': 'this-package-does-not-exist-anywhere==1\n',
      'crawler/quotes/requirements.txt': 'cdshelf==3.1\n',
      ...scrapyProject('crawler/quotes', 'quotesbot', 'toscrape', true, "{'shelf': cdshelf.VERSION}", 'import cdshelf'),
    };
    const id = await makeSpider(m, 'sub_quotes', 'scrapy crawl toscrape', files, { src: 'crawler/quotes' });
    // The Scrapy tools (and the Run dialog's spider picker) import the project in its own environment: cdshelf
    // exists only there.
    const listed = await m.api('GET', `/spiders/${id}/scrapy/spiders`);
    expect(listed.status, listed.body.error).toBe(200);
    expect(listed.body.data).toEqual(['toscrape']);
    const tasks = await runSpider(m, id, { run_type: 'all-nodes', param: `-a base=${shop.url}` });
    expect(tasks).toHaveLength(2);
    for (const t of tasks) {
      const task = await waitTask(m, t, ['finished', 'error'], 400_000);
      expect(task.status, logText(await allLog(m, t))).toBe('finished');
      expect(task.result_count).toBe(TOTAL);
      const r = await m.api('GET', `/tasks/${t}/results`, { query: { page_size: 100 } });
      expect(new Set(r.body.data.map((d: { shelf: string }) => d.shelf))).toEqual(new Set(['3.1']));
    }
  }, 600_000);

  it('names the missing package and the environment the Scrapy tools used', async () => {
    const own = scrapyProject('', 'needsmore', 'needs', false, '{}', 'import cdshelf, js2xml_absent');
    const withReq = await makeSpider(m, 'needs_more', 'scrapy crawl needs', {
      ...own,
      'requirements.txt': 'cdshelf==3.1\n',
    });
    const r = await m.api('GET', `/spiders/${withReq}/scrapy/spiders`);
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/No module named 'js2xml_absent'/);
    expect(r.body.error).toMatch(/in the spider's own environment, built from requirements\.txt/);
    const bare = await makeSpider(m, 'needs_bare', 'scrapy crawl needs', own);
    const b = await m.api('GET', `/spiders/${bare}/scrapy/spiders`);
    expect(b.status).toBe(422);
    expect(b.body.error).toMatch(
      /No module named 'cdshelf' \(in the master's Python .+ \(the spider has no requirements\.txt\)\)/,
    );
  }, 300_000);

  it('imports a repository with two Scrapy projects as two spiders that both run', async () => {
    const url = git.createRepo('two-projects', {
      'README.md': '# two projects\n',
      ...scrapyProject('books', 'books', 'catalogue', true),
      ...scrapyProject('quotes', 'quotes', 'front', false),
    });
    const imp = await m.api('POST', '/spiders/import/github', { body: { url } });
    expect(imp.status, imp.body.error).toBe(200);
    const projects = imp.body.data.projects as { _id: string; name: string; src: string }[];
    expect(projects.map((p) => [p.name, p.src])).toEqual([
      ['two-projects', 'books'],
      ['two-projects_quotes', 'quotes'],
    ]);
    const expected: Record<string, [string, number]> = { books: ['catalogue', TOTAL], quotes: ['front', PER_PAGE] };
    for (const p of projects) {
      const s = await spiderOf(p._id);
      expect(s).toMatchObject({ src: p.src, is_scrapy: true, cmd: 'scrapy crawl', git_url: url });
      const scrapyList = await m.api('GET', `/spiders/${p._id}/scrapy/spiders`);
      expect(scrapyList.body.data).toEqual([expected[p.src][0]]);
    }
    const runs = await Promise.all(
      projects.map(async (p) => {
        const [t] = await runSpider(m, p._id, { param: `${expected[p.src][0]} -a base=${shop.url}` });
        return { t, count: expected[p.src][1] };
      }),
    );
    for (const { t, count } of runs) {
      const task = await waitTask(m, t, ['finished', 'error'], 120_000);
      expect(task.status, logText(await allLog(m, t))).toBe('finished');
      expect(task.result_count).toBe(count);
    }
  }, 300_000);
});

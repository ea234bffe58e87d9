import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';

let m: TestMaster;
let servers: Server[] = [];
let siteUrl = '';
let hookUrl = '';
const delivered: { event: string; body: any }[] = [];

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

beforeAll(async () => {
  // A site of 3 pages with 10 products each.
  siteUrl = await listen(
    createServer((req, res) => {
      const n = Number(/^\/page\/(\d)$/.exec(req.url ?? '')?.[1] ?? 0);
      if (!n || n > 3) return res.writeHead(404).end();
      const items = Array.from({ length: 10 }, (_, i) => `<li class="p">P${n}-${i}</li>`).join('');
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<ul>${items}</ul>${n < 3 ? `<a class="next" href="/page/${n + 1}">n</a>` : ''}`);
    }),
  );
  hookUrl = `${await listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        delivered.push({ event: String(req.headers['x-crawldeck-event']), body: JSON.parse(body) });
        res.writeHead(200).end();
      });
    }),
  )}/hook`;
  m = await startTestMaster({ embeddedNode: true, outboundAllow: '127.0.0.0/8' });
  await waitNodes(m, 1);
  const hook = await m.api('PUT', '/webhooks', {
    body: { name: 'suspicious', url: hookUrl, events: ['task_suspicious'] },
  });
  expect(hook.status).toBe(200);
});
afterAll(async () => {
  await m?.close();
  for (const s of servers) s.close();
  servers = [];
});

const SCRAPY_FILES = {
  'scrapy.cfg': '[settings]\ndefault = shop.settings\n',
  'shop/__init__.py': '',
  'shop/settings.py':
    "BOT_NAME = 'shop'\nSPIDER_MODULES = ['shop.spiders']\nROBOTSTXT_OBEY = False\nTELNETCONSOLE_ENABLED = False\nRETRY_TIMES = 0\nREQUEST_FINGERPRINTER_IMPLEMENTATION = '2.7'\n",
  'shop/spiders/__init__.py': '',
  'shop/spiders/products.py': `import scrapy

class ProductsSpider(scrapy.Spider):
    name = 'products'

    def __init__(self, base=None, **kw):
        super().__init__(**kw)
        self.start_urls = [base + '/page/1']

    def parse(self, response):
        for p in response.css('li.p::text').getall():
            yield {'name': p}
        nxt = response.css('a.next::attr(href)').get()
        if nxt:
            yield response.follow(nxt, self.parse)
`,
};

async function taskInList(id: string) {
  const list = await m.api('GET', '/tasks', { query: { page_size: 100 } });
  return (list.body.data as { _id: string }[]).find((t) => t._id === id) as any;
}

describe('suspicious finishes', () => {
  it('a Scrapy run where every request failed finishes green but is marked: error lines and 0 results where earlier runs had 30', async () => {
    const id = await makeSpider(m, 'shop-suspicious', 'scrapy crawl products', SCRAPY_FILES, { is_scrapy: true });
    const good: string[] = [];
    for (let i = 0; i < 2; i++) {
      const [ok] = await runSpider(m, id, { param: `-a base=${siteUrl}` });
      const t = await waitTask(m, ok, ['finished', 'error'], 60_000);
      expect(t).toMatchObject({ status: 'finished', result_count: 30, error_log_count: 0 });
      good.push(ok);
    }
    // DNS names under .invalid never resolve: every request fails, Scrapy still exits 0.
    const [bad] = await runSpider(m, id, { param: '-a base=http://crawldeck-test.invalid' });
    const t = await waitTask(m, bad, ['finished', 'error'], 60_000);
    expect(t.status).toBe('finished');
    expect(t.result_count).toBe(0);
    expect(t.error_log_count).toBeGreaterThan(0);
    const marked = await waitFor('the suspicion on the task', async () => {
      const d = (await m.api('GET', `/tasks/${bad}`)).body.data;
      return d.suspicious ? d : undefined;
    });
    expect(marked.suspicious).toEqual({ reasons: ['error_lines', 'no_results'], usual_results: 30 });
    expect((await taskInList(bad)).suspicious).toEqual(marked.suspicious);
    expect(await taskInList(bad)).toMatchObject({ result_count: 0, error_log_count: t.error_log_count });

    const hook = await waitFor('the task_suspicious delivery', async () =>
      delivered.find((d) => d.body?.task?.id === bad),
    );
    expect(hook.event).toBe('task_suspicious');
    expect(hook.body.suspicious).toMatchObject({ reasons: 'error_lines,no_results', results: 0, usual_results: 30 });
    // The clean runs, checked when they finished (before this one started), were not marked.
    for (const ok of good) expect((await m.api('GET', `/tasks/${ok}`)).body.data.suspicious).toBeNull();
    expect(delivered.filter((d) => good.includes(d.body?.task?.id))).toEqual([]);
  });

  it('a Python spider that prints a traceback and exits 0 is marked for its error lines only', async () => {
    const code =
      "import traceback\ntry:\n    {}['title']\nexcept KeyError:\n    traceback.print_exc()\nprint('carried on')\n";
    const id = await makeSpider(m, 'swallows', 'python3 main.py', { 'main.py': code });
    const [t] = await runSpider(m, id);
    await waitTask(m, t, ['finished'], 30_000);
    const d = await waitFor('the suspicion', async () => {
      const x = (await m.api('GET', `/tasks/${t}`)).body.data;
      return x.suspicious ? x : undefined;
    });
    expect(d.suspicious).toEqual({ reasons: ['error_lines'], usual_results: 0 });
    const errors = await m.api('GET', `/tasks/${t}/error-log`);
    expect(errors.body.data.map((l: { msg: string }) => l.msg)).toEqual([
      'Traceback (most recent call last):',
      "KeyError: 'title'",
    ]);
  });
});

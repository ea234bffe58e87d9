import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';

const PAGES = 20;
const PER_PAGE = 25;

let m: TestMaster;
let site: Server;
let siteUrl = '';

beforeAll(async () => {
  // A small local site: /page/N lists PER_PAGE products and links to the next page.
  site = createServer((req, res) => {
    const n = Number(/^\/page\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    if (!n || n > PAGES) {
      res.writeHead(404).end();
      return;
    }
    const items = Array.from(
      { length: PER_PAGE },
      (_, i) =>
        `<li class="p"><a href="/p/${n}-${i}">Product ${n}-${i}</a><span class="price">${n * 100 + i}</span></li>`,
    ).join('');
    const next = n < PAGES ? `<a class="next" href="/page/${n + 1}">next</a>` : '';
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<html><body><ul>${items}</ul>${next}</body></html>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1);
});
afterAll(async () => {
  await m?.close();
  site?.close();
});

describe('a real Scrapy spider', () => {
  it('crawls a local site and the automatically added Crawldeck pipeline delivers every item (settings.py untouched)', async () => {
    const files = {
      'scrapy.cfg': '[settings]\ndefault = shop.settings\n',
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
            yield {'name': li.css('a::text').get(), 'url': response.urljoin(li.css('a::attr(href)').get()), 'price': int(li.css('.price::text').get())}
        nxt = response.css('a.next::attr(href)').get()
        if nxt:
            yield response.follow(nxt, self.parse)
`,
    };
    const id = await makeSpider(m, 'shop', 'scrapy crawl products', files, { is_scrapy: true });
    const [t] = await runSpider(m, id, { param: `-a base=${siteUrl}` });
    const task = await waitTask(m, t, ['finished', 'error'], 60_000);
    expect(task.cmd).toMatch(/python3 -m scrapy crawl products -a base=/);
    expect(task.status).toBe('finished');
    expect(task.result_count).toBe(PAGES * PER_PAGE);
    const r = await m.api('GET', `/tasks/${t}/results`, { query: { page_size: 1000 } });
    expect(r.body.total).toBe(PAGES * PER_PAGE);
    const names = new Set(r.body.data.map((d: { name: string }) => d.name));
    expect(names.size).toBe(PAGES * PER_PAGE);
    expect(r.body.data[0]).toMatchObject({ name: 'Product 1-0', price: 100, task_id: t });
    // Scrapy's stats line "log_count/ERROR" is not an error line; its INFO lines are not either.
    const errors = await m.api('GET', `/tasks/${t}/error-log`);
    expect(errors.body.data.filter((l: { msg: string }) => /log_count\/ERROR/.test(l.msg))).toEqual([]);
  });
});

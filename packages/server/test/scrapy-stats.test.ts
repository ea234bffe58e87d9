import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';

const PAGES = 12;
const PER_PAGE = 5;
/** Pages answer slowly, so the run lasts several of Scrapy's (shortened) stats intervals. */
const PAGE_DELAY_MS = 250;

let m: TestMaster;
let site: Server;
let siteUrl = '';

beforeAll(async () => {
  // /page/N lists PER_PAGE products, links to the next page and to one page that does not exist.
  site = createServer((req, res) => {
    const n = Number(/^\/page\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    setTimeout(() => {
      if (!n || n > PAGES) return res.writeHead(404).end('gone');
      const items = Array.from({ length: PER_PAGE }, (_, i) => `<li class="p">Product ${n}-${i}</li>`).join('');
      const next = n < PAGES ? `<a class="next" href="/page/${n + 1}">next</a>` : '';
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<ul>${items}</ul>${next}<a class="dead" href="/missing/${n}">x</a>`);
    }, PAGE_DELAY_MS);
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

const files = {
  'scrapy.cfg': '[settings]\ndefault = shop.settings\n',
  'shop/__init__.py': '',
  'shop/settings.py': [
    "BOT_NAME = 'shop'",
    "SPIDER_MODULES = ['shop.spiders']",
    'ROBOTSTXT_OBEY = False',
    'TELNETCONSOLE_ENABLED = False',
    'CONCURRENT_REQUESTS = 1',
    'LOGSTATS_INTERVAL = 1.0',
    'HTTPERROR_ALLOW_ALL = False',
    "REQUEST_FINGERPRINTER_IMPLEMENTATION = '2.7'",
  ].join('\n'),
  'shop/spiders/__init__.py': '',
  // The last page fails in the callback after its items, with a KeyError: an ERROR record, a traceback and the
  // line naming the cause.
  'shop/spiders/products.py': `import scrapy

class ProductsSpider(scrapy.Spider):
    name = 'products'

    def __init__(self, base=None, **kw):
        super().__init__(**kw)
        self.start_urls = [base + '/page/1']

    def parse(self, response):
        for li in response.css('li.p::text').getall():
            yield {'name': li}
        if response.url.endswith('/page/${PAGES}'):
            {}['title']
        yield response.follow(response.css('a.dead::attr(href)').get(), self.parse)
        nxt = response.css('a.next::attr(href)').get()
        if nxt:
            yield response.follow(nxt, self.parse)
`,
};

describe('Scrapy run statistics', () => {
  it('reads pages and items per interval, statuses, levels and the closing dump of a real run; the spider sees its runs', async () => {
    const id = await makeSpider(m, 'shop-stats', 'scrapy crawl products', files, { is_scrapy: true });
    const [t] = await runSpider(m, id, { param: `-a base=${siteUrl}` });
    // While it runs, the samples grow as the log streams in.
    const live = await waitFor(
      'a sample with pages',
      async () => {
        const r = await m.api('GET', `/tasks/${t}/scrapy-stats`);
        return r.body.data?.samples.some((s: { pages: number }) => s.pages > 0) ? r.body.data : undefined;
      },
      60_000,
    );
    expect(live.is_scrapy).toBe(true);
    const task = await waitTask(m, t, ['finished', 'error'], 90_000);
    expect(task.status).toBe('finished');
    const got = await waitFor('the closing stats', async () => {
      const r = await m.api('GET', `/tasks/${t}/scrapy-stats`);
      return r.body.data?.final ? r.body.data : undefined;
    });
    expect(got.final.finish_reason).toBe('finished');
    // One request at a time: every page and every dead link but the last page's.
    expect(got.final.elapsed_time_seconds).toBeGreaterThan(((PAGES * 2 - 1) * PAGE_DELAY_MS) / 1000);
    expect(got.final.memusage_max).toBeGreaterThan(1_000_000);
    expect(got.final.item_scraped_count).toBe(PAGES * PER_PAGE);
    expect(got.items).toBe(PAGES * PER_PAGE);
    // Every item scraped was stored: nothing to say.
    const detail = (await m.api('GET', `/tasks/${t}`)).body.data;
    expect(detail.result_count).toBe(PAGES * PER_PAGE);
    expect(detail).not.toHaveProperty('scrapy_items_mismatch');
    expect(got.status_counts).toEqual({ '200': PAGES, '404': PAGES - 1 });
    expect(got.level_counts.ERROR).toBe(1);
    expect(got.level_counts.INFO).toBeGreaterThan(5);
    expect(got.samples.length).toBeGreaterThan(2);
    expect(got.samples.at(-1).items).toBeGreaterThan(got.samples[0].items);
    expect(got.samples[0].at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    // The KeyError's cause is an error line, Scrapy's stats dump is not.
    const errors = (await allLog(m, t)).filter((l) => l.is_error).map((l) => l.msg);
    expect(errors).toContain("KeyError: 'title'");
    expect(errors.some((l) => / ERROR: Spider error processing/.test(l))).toBe(true);
    expect(errors.filter((l) => /^\s*\{?'[^']+\/[^']*': /.test(l))).toEqual([]);

    const runs = await m.api('GET', `/spiders/${id}/scrapy-runs`);
    expect(runs.status).toBe(200);
    expect(runs.body.data[0]).toMatchObject({
      task_id: t,
      status: 'finished',
      items: PAGES * PER_PAGE,
      finish_reason: 'finished',
      errors: errors.length,
    });
  });

  it('an ended task whose Scrapy stats count other than the items stored says so on its page', async () => {
    // Run from a sub-folder, Scrapy finds the project but not the node's item pipeline: it scrapes, nothing is stored.
    const id = await makeSpider(m, 'shop-sub', 'cd shop && scrapy crawl products', files, { is_scrapy: true });
    const [t] = await runSpider(m, id, { param: `-a base=${siteUrl}` });
    await waitTask(m, t, ['finished', 'error'], 90_000);
    const got = await waitFor('the closing stats', async () => {
      const r = await m.api('GET', `/tasks/${t}/scrapy-stats`);
      return r.body.data?.final ? r.body.data : undefined;
    });
    const detail = (await m.api('GET', `/tasks/${t}`)).body.data;
    expect(got.final.item_scraped_count).toBe(PAGES * PER_PAGE);
    expect(detail.result_count).toBeLessThan(PAGES * PER_PAGE);
    expect(detail.scrapy_items_mismatch).toEqual({ scraped: PAGES * PER_PAGE, stored: detail.result_count });
  });

  it('a task of a spider that is not a Scrapy spider has no Scrapy stats', async () => {
    const id = await makeSpider(m, 'plain', 'python3 main.py', {
      'main.py':
        "print('2026-01-01 00:00:00 [x] INFO: Crawled 9 pages (at 9 pages/min), scraped 9 items (at 9 items/min)')\n",
    });
    const [t] = await runSpider(m, id);
    await waitTask(m, t, ['finished'], 30_000);
    const r = await m.api('GET', `/tasks/${t}/scrapy-stats`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ is_scrapy: false, pages: 0, items: 0, samples: [], final: null });
  });

  it('answers 404 for an unknown task and 400 for a malformed id or limit', async () => {
    expect((await m.api('GET', '/tasks/0123456789abcdef01234567/scrapy-stats')).status).toBe(404);
    expect((await m.api('GET', '/tasks/nope/scrapy-stats')).status).toBe(400);
    const id = await makeSpider(m, 'limits', 'scrapy crawl x', {}, { is_scrapy: true });
    expect((await m.api('GET', `/spiders/${id}/scrapy-runs`, { query: { limit: 0 } })).status).toBe(400);
  });
});

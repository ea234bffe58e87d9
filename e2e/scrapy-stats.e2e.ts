/**
 * Scrapy statistics and suspicious finishes, in en and zh, on a master with its embedded node: a real Scrapy
 * spider crawls a local site; its task's Stats tab shows pages, items, statuses, log levels and the final stats
 * with charts; the spider's Analytics tab lists the run; a later run where every request fails finishes green
 * but is marked "check this run" in the task list and on its page. Screenshots in test-output/screens/.
 */

import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, useE2E } from './harness.ts';
import { shot, signIn } from './journey.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E({ master: { embeddedNode: true } });
const PAGES = 8;
const PER_PAGE = 5;

let site: Server;
let siteUrl = '';

beforeAll(async () => {
  // Slow pages, so the run spans several of Scrapy's (shortened) stats intervals; every page links a dead one.
  site = createServer((req, res) => {
    const n = Number(/^\/page\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    setTimeout(() => {
      if (!n || n > PAGES) return res.writeHead(404).end();
      const items = Array.from({ length: PER_PAGE }, (_, i) => `<li class="p">P${n}-${i}</li>`).join('');
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<ul>${items}</ul><a class="dead" href="/gone/${n}">x</a>${n < PAGES ? `<a class="next" href="/page/${n + 1}">n</a>` : ''}`,
        );
    }, 200);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
afterAll(() => {
  site?.close();
});

const FILES: Record<string, string> = {
  'scrapy.cfg': '[settings]\ndefault = shop.settings\n',
  'shop/__init__.py': '',
  'shop/settings.py':
    "BOT_NAME = 'shop'\nSPIDER_MODULES = ['shop.spiders']\nROBOTSTXT_OBEY = False\nTELNETCONSOLE_ENABLED = False\nCONCURRENT_REQUESTS = 1\nLOGSTATS_INTERVAL = 1.0\nRETRY_TIMES = 0\nREQUEST_FINGERPRINTER_IMPLEMENTATION = '2.7'\n",
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
        yield response.follow(response.css('a.dead::attr(href)').get(), self.parse)
        nxt = response.css('a.next::attr(href)').get()
        if nxt:
            yield response.follow(nxt, self.parse)
`,
};

const call = apiCaller(() => env.url);

async function runAndWait(token: string, spiderId: string, base: string): Promise<string> {
  const [id] = await call<string[]>(token, 'PUT', '/tasks', {
    spider_id: spiderId,
    run_type: 'random',
    param: `-a base=${base}`,
  });
  await expect
    .poll(async () => (await call(token, 'GET', `/tasks/${id}`)).status, { timeout: 90_000, interval: 300 })
    .toBe('finished');
  return id;
}

const screen = (page: Page, name: string) => shot(page, name, { top: true, settleMs: 500 });

const view = (page: Page) => page.locator('.app-view:visible');
const TEXT = { en: { tab: 'Stats', check: 'Check this run' }, zh: { tab: '统计', check: '请检查此次运行' } };

describe('Scrapy statistics and suspicious finishes', () => {
  for (const lang of ['en', 'zh'] as const) {
    e2eTest(
      `Stats tab, Analytics runs and the suspicious mark (${lang})`,
      async ({ page }) => {
        const token = await signIn(page, lang);
        const spider = await call<{ _id: string }>(token, 'PUT', '/spiders', {
          name: `e2e-shop-${lang}`,
          cmd: 'scrapy crawl products',
          is_scrapy: true,
        });
        for (const [p, content] of Object.entries(FILES))
          await call(token, 'POST', `/spiders/${spider._id}/file`, { path: p, content });
        const good = await runAndWait(token, spider._id, siteUrl);

        await page.goto(`${env.url}/tasks/${good}?tab=stats`);
        const stats = view(page).locator('[data-testid=scrapy-stats][data-finished=true]');
        await stats.waitFor({ timeout: 20_000 });
        expect(await view(page).locator('[data-testid=tab-stats]').innerText()).toBe(TEXT[lang].tab);
        expect(await stats.locator('[data-metric=items] .ant-statistic-content').innerText()).toBe(
          String(PAGES * PER_PAGE),
        );
        expect(await stats.locator('[data-metric=finish-reason] .ant-statistic-content').innerText()).toBe('finished');
        for (const chart of ['rate', 'statuses', 'levels'])
          await stats.locator(`[data-chart=${chart}] canvas`).first().waitFor();
        await expect
          .poll(() =>
            stats
              .locator('[data-testid=scrapy-stats-dump] tr', { hasText: 'downloader/response_status_count/404' })
              .count(),
          )
          .toBe(1);
        await screen(page, `task-stats-${lang}`);

        await page.goto(`${env.url}/spiders/${spider._id}?tab=analytics`);
        const runs = view(page).locator('[data-testid=scrapy-runs]');
        await expect.poll(() => runs.locator('tbody tr.ant-table-row').count(), { timeout: 20_000 }).toBe(1);
        await view(page).locator('[data-chart=scrapy-runs] canvas').first().waitFor();
        await screen(page, `spider-analytics-scrapy-${lang}`);

        // Every request fails (a name under .invalid never resolves); Scrapy exits 0 all the same.
        const bad = await runAndWait(token, spider._id, 'http://crawldeck-e2e.invalid');
        await expect
          .poll(async () => (await call(token, 'GET', `/tasks/${bad}`)).suspicious?.reasons, { timeout: 10_000 })
          .toEqual(['error_lines', 'no_results']);
        await page.goto(`${env.url}/tasks`);
        const mark = view(page).locator(`[data-task-id="${bad}"] [data-testid=task-suspicious]`);
        await mark.waitFor();
        expect(await mark.getAttribute('aria-label')).toMatch(new RegExp(`^${TEXT[lang].check}: `));
        expect(await view(page).locator(`[data-task-id="${good}"] [data-testid=task-suspicious]`).count()).toBe(0);
        await screen(page, `task-list-suspicious-${lang}`);
        await page.goto(`${env.url}/tasks/${bad}`);
        const detailMark = view(page).locator('[data-testid=task-overview] [data-testid=task-suspicious]');
        await detailMark.waitFor();
        expect(await detailMark.getAttribute('data-reasons')).toBe('error_lines,no_results');
        expect(await detailMark.innerText()).toMatch(new RegExp(`^${TEXT[lang].check}: `));
        await screen(page, `task-overview-suspicious-${lang}`);
      },
      { timeout: 240_000 },
    );
  }
});

/**
 * Spiders written for Crawlab run unchanged: Crawlab's Python imports (`crawlab`, `crawlab.result`,
 * `crawlab.entity.result`, its Scrapy pipeline) and Node.js `require('crawlab-sdk')` store their items through
 * Crawldeck's SDK, and the environment variables Crawlab sets are there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';
import { startShopSite, TOTAL, type ShopSite } from './support/shop-site.ts';

let m: TestMaster;
let shop: ShopSite;
beforeAll(async () => {
  [m, shop] = await Promise.all([startTestMaster({ embeddedNode: true }), startShopSite()]);
  await waitNodes(m, 1);
});
afterAll(async () => {
  await m?.close();
  await shop?.close();
});

async function runToEnd(id: string, param = '') {
  const [t] = await runSpider(m, id, { param });
  const task = await waitTask(m, t, ['finished', 'error'], 60_000);
  const log = (await allLog(m, t)).map((l) => l.msg).join('\n');
  expect(task.status, log).toBe('finished');
  const results = await m.api('GET', `/tasks/${t}/results`, { query: { page_size: 100 } });
  return { task, items: results.body.data as Record<string, unknown>[] };
}

describe('Crawlab spiders', () => {
  it('save items with `from crawlab import save_item` and see the task in CRAWLAB_* variables', async () => {
    const main = `import os
from crawlab import save_item, save_items
from crawlab.entity.result import Result
from crawlab.result import save_items as save_results

save_item({'name': 'one', 'task': os.environ['CRAWLAB_TASK_ID'], 'col': os.environ.get('CRAWLAB_COLLECTION')})
save_items([{'name': 'two'}, {'name': 'three'}])
save_results([Result({'name': 'four'})])
`;
    const id = await makeSpider(m, 'crawlab_basic', 'python3 main.py', { 'main.py': main });
    const { task, items } = await runToEnd(id);
    expect(task.result_count).toBe(4);
    const names = items.map((i) => i.name).sort();
    expect(names).toEqual(['four', 'one', 'three', 'two']);
    expect(items.find((i) => i.name === 'one')).toMatchObject({ task: task._id, col: 'results_crawlab_basic' });
  });

  it("store a Scrapy project's items once with Crawlab's pipeline in its settings", async () => {
    const files = {
      'scrapy.cfg': '[settings]\ndefault = shop.settings\n',
      'shop/__init__.py': '',
      'shop/settings.py': [
        "BOT_NAME = 'shop'",
        "SPIDER_MODULES = ['shop.spiders']",
        'ROBOTSTXT_OBEY = False',
        'TELNETCONSOLE_ENABLED = False',
        "ITEM_PIPELINES = {'crawlab.pipelines.CrawlabMongoPipeline': 888}",
      ].join('\n'),
      'shop/spiders/__init__.py': '',
      'shop/spiders/products.py': `import scrapy

class Products(scrapy.Spider):
    name = 'products'

    def __init__(self, base=None, **kw):
        super().__init__(**kw)
        self.start_urls = [base + '/products?page=1']

    def parse(self, response):
        for li in response.css('li.product'):
            yield {'title': li.css('h2 a::text').get()}
        nxt = response.css('a.next::attr(href)').get()
        if nxt:
            yield response.follow(nxt, self.parse)
`,
    };
    const withOurs = await makeSpider(m, 'crawlab_scrapy', 'scrapy crawl products', files, { is_scrapy: true });
    expect((await runToEnd(withOurs, `-a base=${shop.url}`)).task.result_count).toBe(TOTAL);
    // Without Crawldeck's own pipeline, Crawlab's stores them.
    const alone = await makeSpider(m, 'crawlab_scrapy_alone', 'scrapy crawl products', files, {
      is_scrapy: true,
      envs: [{ name: 'CRAWLDECK_SCRAPY_PIPELINE', value: '0' }],
    });
    expect((await runToEnd(alone, `-a base=${shop.url}`)).task.result_count).toBe(TOTAL);
  });

  it("save items from Node.js with require('crawlab-sdk')", async () => {
    const main = `const crawlab = require('crawlab-sdk');
(async () => {
  await crawlab.saveItem({ name: 'node-one', task: process.env.CRAWLAB_TASK_ID });
  await crawlab.saveItems([{ name: 'node-two' }]);
  await crawlab.close();
})();
`;
    const id = await makeSpider(m, 'crawlab_node', 'node main.js', { 'main.js': main });
    const { task, items } = await runToEnd(id);
    expect(task.result_count).toBe(2);
    expect(items.find((i) => i.name === 'node-one')).toMatchObject({ task: task._id });
  });
});

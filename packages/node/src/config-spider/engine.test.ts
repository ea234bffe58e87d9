import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpiderfile, type Spiderfile } from '@crawldeck/shared';
import { startShopSite, TOTAL, PAGES, PER_PAGE, type ShopSite } from '../../../server/test/support/shop-site.ts';
import { crawl, Page } from './engine.ts';
import { extractFields } from './extract.ts';
import { parseRobots } from './robots.ts';

let site: ShopSite;
beforeAll(async () => {
  site = await startShopSite();
});
afterAll(async () => site?.close());

const listDetail = (over: Partial<Spiderfile> = {}): Spiderfile => ({
  name: 'shop',
  start_url: `${site.url}/products`,
  start_stage: 'list',
  settings: { MAX_PAGES: 10 },
  stages: [
    {
      name: 'list',
      is_list: true,
      list_css: 'li.product',
      page_css: 'a.next',
      fields: [
        { name: 'title', css: 'h2.title a' },
        { name: 'price', xpath: './/span[@class="price"]/text()' },
        { name: 'image', css: 'img', attr: 'src' },
        { name: 'url', css: 'h2 a', attr: 'href', next_stage: 'detail' },
      ],
    },
    {
      name: 'detail',
      fields: [
        { name: 'description', css: 'p.desc' },
        { name: 'sku', xpath: '//td[@class="sku"]' },
      ],
    },
  ],
  ...over,
});

describe('config spider engine', () => {
  it('crawls a paginated list with detail pages completely, in order', async () => {
    const rows: Record<string, string>[] = [];
    const stats = await crawl(listDetail(), { onItem: (r) => void rows.push(r) });
    expect(rows).toHaveLength(TOTAL);
    expect(rows[0]).toEqual({
      title: 'Product 1',
      price: '$1.99',
      image: `${site.url}/img/1.png`,
      url: `${site.url}/product/1`,
      description: 'Description of product 1',
      sku: 'SKU-1',
    });
    expect(rows.map((r) => r.sku)).toEqual(Array.from({ length: TOTAL }, (_, i) => `SKU-${i + 1}`));
    expect(stats).toMatchObject({ items: TOTAL, errors: 0, skippedByRobots: 0 });
  });

  it('stops pagination at MAX_PAGES and supports list_xpath without detail', async () => {
    const sf = listDetail({ settings: { MAX_PAGES: 2 } });
    sf.stages = [
      {
        name: 'list',
        is_list: true,
        list_xpath: '//ul[@id="list"]/li',
        page_xpath: '//a[@class="next"]/@href',
        fields: [{ name: 'title', css: 'h2' }],
      },
    ];
    const rows: Record<string, string>[] = [];
    await crawl(sf, { onItem: (r) => void rows.push(r) });
    expect(rows).toHaveLength(2 * PER_PAGE);
    expect(PAGES).toBeGreaterThan(2);
  });

  it('respects robots.txt unless ROBOTSTXT_OBEY is false, and waits DOWNLOAD_DELAY between requests', async () => {
    const sf = listDetail({
      start_url: `${site.url}/private/list`,
      stages: [{ name: 'l', is_list: true, list_css: 'li', fields: [{ name: 't' }] }],
      start_stage: 'l',
    });
    const blocked: Record<string, string>[] = [];
    const s1 = await crawl(sf, { onItem: (r) => void blocked.push(r) });
    expect(blocked).toHaveLength(0);
    expect(s1.skippedByRobots).toBe(1);
    const allowed: Record<string, string>[] = [];
    await crawl({ ...sf, settings: { ROBOTSTXT_OBEY: false } }, { onItem: (r) => void allowed.push(r) });
    expect(allowed).toEqual([{ t: 'secret' }]);

    const t0 = Date.now();
    await crawl(listDetail({ settings: { DOWNLOAD_DELAY: 0.1, MAX_PAGES: 1 } }), {
      onItem: () => undefined,
      maxItems: 2,
    });
    // robots.txt, list, detail 1, detail 2: three waits of 100 ms
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('suggests the list and its fields on a plain product page', async () => {
    const res = await fetch(`${site.url}/plain`);
    const page = new Page(`${site.url}/plain`, await res.text());
    const found = extractFields(page)!;
    expect(found.count).toBe(6);
    expect(page.$(found.list_css).length).toBe(6);
    expect(found.list_css).toMatch(/div\.card$/);
    const byCss = Object.fromEntries(found.fields.map((f) => [f.css + (f.attr ? '@' + f.attr : ''), f.name]));
    expect(byCss['h3.name']).toBe('name');
    expect(byCss['span.cost']).toBe('cost');
    expect(byCss['a.more@href']).toBe('more_url');
  });

  it('parses robots.txt groups, wildcards and longest match', () => {
    const r = parseRobots(
      'User-agent: other\nDisallow: /\n\nUser-agent: *\nDisallow: /a\nAllow: /a/ok\nDisallow: /*.pdf$\n',
      'Crawldeck/4',
    );
    expect(r.allows('/')).toBe(true);
    expect(r.allows('/a/x')).toBe(false);
    expect(r.allows('/a/ok/1')).toBe(true);
    expect(r.allows('/file.pdf')).toBe(false);
    expect(r.allows('/file.pdf?x')).toBe(true);
    expect(parseRobots('User-agent: crawldeck\nDisallow: /\n', 'Crawldeck-ConfigSpider/4.0').allows('/x')).toBe(false);
  });

  it('validates Spiderfiles with line numbers', () => {
    const bad = parseSpiderfile(
      'name: x\nstart_url: http://a/\nstages:\n  - name: list\n    fields:\n      - name: t\n        next_stage: detial\n',
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems[0]).toEqual({
        line: 7,
        message: expect.stringMatching(/next_stage "detial" is not a stage/),
      });
    const yamlErr = parseSpiderfile('name: x\nstages: [\n  - a: b\n   c: d');
    expect(yamlErr.ok).toBe(false);
    if (!yamlErr.ok) expect(yamlErr.problems[0].line).toBeGreaterThan(1);
    const unknownStart = parseSpiderfile(
      'name: x\nstart_url: http://a/\nstart_stage: nope\nstages:\n  - name: list\n    fields: [{name: t}]\n',
    );
    expect(!unknownStart.ok && unknownStart.problems[0]).toEqual({
      line: 3,
      message: expect.stringMatching(/start_stage "nope"/),
    });
  });
});

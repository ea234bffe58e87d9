import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestMaster, type TestMaster } from './harness.ts';
import { startShopSite, TOTAL, type ShopSite } from './support/shop-site.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node/bin/crawldeck-config-spider');

let m: TestMaster;
let site: ShopSite;
beforeAll(async () => {
  [m, site] = await Promise.all([startTestMaster(), startShopSite()]);
});
afterAll(async () => {
  await m?.close();
  await site?.close();
});

const rules = () => ({
  start_url: `${site.url}/products`,
  start_stage: 'list',
  settings: { MAX_PAGES: 10, ROBOTSTXT_OBEY: true },
  stages: [
    {
      name: 'list',
      is_list: true,
      list_css: 'li.product',
      page_css: 'a.next',
      fields: [
        { name: 'title', css: 'h2.title a' },
        { name: 'price', css: 'span.price' },
        { name: 'url', css: 'h2 a', attr: 'href', next_stage: 'detail' },
      ],
    },
    { name: 'detail', fields: [{ name: 'sku', xpath: '//td[@class="sku"]' }] },
  ],
});

/** Runs the task command the node would run, in a folder holding the spider's files. */
async function runTask(spiderfile: string): Promise<Record<string, string>[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-cfgrun-'));
  try {
    writeFileSync(path.join(dir, 'Spiderfile'), spiderfile);
    const items = path.join(dir, 'items.jsonl');
    // async: the test site lives in this process
    await promisify(execFile)(BIN, ['Spiderfile'], {
      cwd: dir,
      env: { ...process.env, CRAWLDECK_ITEMS: items },
      timeout: 60_000,
    });
    return readFileSync(items, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('configurable spiders', () => {
  it('lists templates', async () => {
    const r = await m.api('GET', '/config_spiders_templates');
    expect(r.status).toBe(200);
    expect(r.body.data.map((t: any) => t.name)).toEqual(['list', 'list-detail', 'paginated-list']);
  });

  it('is built in the console only: create, rules form, run delivers every item, preview equals the run’s first rows', async () => {
    const created = await m.api('PUT', '/config_spiders', {
      body: { name: 'shop', template: 'list-detail', start_url: `${site.url}/products` },
    });
    expect(created.status, created.body.error).toBe(200);
    const id = created.body.data._id;
    expect(created.body.data).toMatchObject({ type: 'configurable', cmd: 'crawldeck-config-spider Spiderfile' });
    const initial = await m.api('GET', `/spiders/${id}/file`, { query: { path: 'Spiderfile' } });
    expect(initial.body.data).toMatch(/^name: shop\n/);

    const saved = await m.api('POST', `/config_spiders/${id}/config`, { body: rules() });
    expect(saved.status, saved.body.error).toBe(200);
    expect(saved.body.data.spiderfile.name).toBe('shop');
    const text = (await m.api('GET', `/spiders/${id}/file`, { query: { path: 'Spiderfile' } })).body.data as string;
    expect(text).toBe(saved.body.data.content);
    expect((await m.api('GET', `/spiders/${id}`)).body.data.config.stages).toHaveLength(2);

    const rows = await runTask(text);
    expect(rows).toHaveLength(TOTAL);
    expect(rows[TOTAL - 1]).toEqual({
      title: `Product ${TOTAL}`,
      price: `$${TOTAL}.99`,
      url: `${site.url}/product/${TOTAL}`,
      sku: `SKU-${TOTAL}`,
    });

    const prev = await m.api('POST', `/spiders/${id}/preview_crawl`, { body: { items: 5 } });
    expect(prev.status, prev.body.error).toBe(200);
    expect(prev.body.data.rows).toEqual(rows.slice(0, 5));
    expect(prev.body.data.stats.stoppedBy).toBe('maxItems');

    // unsaved form rules can be previewed too
    const draft = rules();
    draft.stages[0].fields = [{ name: 'title', css: 'h2.title a' }] as any;
    const prev2 = await m.api('POST', `/spiders/${id}/preview_crawl`, { body: { items: 2, spiderfile: draft } });
    expect(prev2.body.data.rows).toEqual([{ title: 'Product 1' }, { title: 'Product 2' }]);
  });

  it('saves Spiderfile text as written and refuses bad YAML or unknown stages with the line', async () => {
    const created = await m.api('PUT', '/config_spiders', { body: { name: 'texty', start_url: `${site.url}/plain` } });
    const id = created.body.data._id;
    const content = `# my spider\nname: texty\nstart_url: ${site.url}/plain\nstages:\n  - name: list\n    is_list: true\n    list_css: div.card\n    fields:\n      - name: name\n        css: h3\n`;
    const ok = await m.api('POST', `/config_spiders/${id}/spiderfile`, { body: { content } });
    expect(ok.status, ok.body.error).toBe(200);
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'Spiderfile' } })).body.data).toBe(content);
    const prev = await m.api('POST', `/spiders/${id}/preview_crawl`, { body: {} });
    expect(prev.body.data.rows).toHaveLength(6);

    const badYaml = await m.api('POST', `/config_spiders/${id}/spiderfile`, {
      body: { content: 'name: x\nstages:\n  - name: a\n   fields: [\n' },
    });
    expect(badYaml.status).toBe(400);
    expect(badYaml.body.error).toMatch(/^invalid Spiderfile: line \d+: invalid YAML/);
    const unknown = await m.api('POST', `/config_spiders/${id}/spiderfile`, {
      body: { content: content + '        next_stage: details\n' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/line 11: .*next_stage "details" is not a stage/);
    // nothing was saved by the refused calls
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'Spiderfile' } })).body.data).toBe(content);
  });

  it('suggests the list selector and fields on a plain product-list page', async () => {
    const created = await m.api('PUT', '/config_spiders', { body: { name: 'plain', start_url: `${site.url}/plain` } });
    const r = await m.api('POST', `/spiders/${created.body.data._id}/extract_fields`, { body: {} });
    expect(r.status, r.body.error).toBe(200);
    expect(r.body.data.count).toBe(6);
    expect(r.body.data.list_css).toMatch(/div\.card$/);
    expect(r.body.data.fields.map((f: any) => f.name)).toEqual(expect.arrayContaining(['name', 'cost', 'more_url']));
  });

  it('converts a configurable spider into a Scrapy project that lists its spider', async () => {
    const created = await m.api('PUT', '/config_spiders', {
      body: { name: 'conv', start_url: `${site.url}/products` },
    });
    const id = created.body.data._id;
    await m.api('POST', `/config_spiders/${id}/config`, { body: rules() });
    const r = await m.api('POST', `/config_spiders/${id}/convert`);
    expect(r.status, r.body.error).toBe(200);
    expect(r.body.data).toMatchObject({ type: 'customized', is_scrapy: true, cmd: 'scrapy crawl conv' });
    const list = await m.api('GET', `/spiders/${id}/scrapy/spiders`);
    expect(list.body.data).toEqual(['conv']);
    // a second conversion is refused: it is no longer configurable
    const again = await m.api('POST', `/config_spiders/${id}/convert`);
    expect(again.status).toBe(400);
  });
});

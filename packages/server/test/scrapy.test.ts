import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { startTestMaster, type TestMaster } from './harness.ts';
import { walkFiles } from '../src/features/scrapy/workspace.ts';

let m: TestMaster;
let projectDir: string;
let spiderId: string;

const SPIDER = `import scrapy


class QuotesSpider(scrapy.Spider):
    name = "quotes"
    start_urls = ["http://127.0.0.1:9/page/1"]

    def parse(self, response):
        for q in response.css("li.quote"):
            yield {"text": q.css("span::text").get()}
        nxt = response.css("a.next::attr(href)").get()
        if nxt:
            yield response.follow(nxt, self.parse)
`;

function zipDir(dir: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const rel of walkFiles(dir)) zip.addFile(path.join(dir, rel), rel);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

async function uploadSpider(name: string, zip: Buffer) {
  const form = new FormData();
  form.append('name', name);
  form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), `${name}.zip`);
  const res = await fetch(`${m.url}/api/spiders`, {
    method: 'PUT',
    headers: { authorization: m.adminToken },
    body: form,
  });
  const body = (await res.json()) as { data: any; error?: string };
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${body.error}`);
  return body.data;
}

const file = async (p: string) =>
  (await m.api('GET', `/spiders/${spiderId}/file`, { query: { path: p } })).body.data as string;

beforeAll(async () => {
  m = await startTestMaster();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-scrapy-'));
  projectDir = path.join(tmp, 'demo');
  execFileSync('/usr/bin/python3', ['-m', 'scrapy', 'startproject', 'demo', projectDir], { stdio: 'ignore' });
  writeFileSync(path.join(projectDir, 'demo/spiders/quotes.py'), SPIDER);
  const spider = await uploadSpider('scrapy-demo', await zipDir(projectDir));
  spiderId = spider._id;
  expect(spider.is_scrapy).toBe(true);
}, 120_000);

afterAll(async () => {
  await m?.close();
  if (projectDir) rmSync(path.dirname(projectDir), { recursive: true, force: true });
});

describe('scrapy projects', () => {
  it('lists the spiders as `scrapy list` does and finds their files', async () => {
    const r = await m.api('GET', `/spiders/${spiderId}/scrapy/spiders`);
    expect(r.status, r.body.error).toBe(200);
    expect(r.body.data).toEqual(['quotes']);
    const fp = await m.api('GET', `/spiders/${spiderId}/scrapy/spider/filepath`, { query: { spider_name: 'quotes' } });
    expect(fp.body.data).toBe('demo/spiders/quotes.py');
    const missing = await m.api('GET', `/spiders/${spiderId}/scrapy/spider/filepath`, {
      query: { spider_name: 'nope' },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatch(/spider nope not found/);
  });

  it('generates a spider from a template into the files', async () => {
    const r = await m.api('PUT', `/spiders/${spiderId}/scrapy/spiders`, {
      body: { name: 'books', domain: 'books.example.com' },
    });
    expect(r.status, r.body.error).toBe(200);
    expect(r.body.data).toEqual({ name: 'books', filepath: 'demo/spiders/books.py' });
    expect(await file('demo/spiders/books.py')).toMatch(
      /name = "books"[\s\S]*allowed_domains = \["books.example.com"\]/,
    );
    // Names descending, as the console lists names.
    expect((await m.api('GET', `/spiders/${spiderId}/scrapy/spiders`)).body.data).toEqual(['quotes', 'books']);
    const dup = await m.api('PUT', `/spiders/${spiderId}/scrapy/spiders`, { body: { name: 'books', domain: 'x.com' } });
    expect(dup.status).toBe(422);
    expect(
      (await m.api('PUT', `/spiders/${spiderId}/scrapy/spiders`, { body: { name: 'ok', domain: '-oProxy' } })).status,
    ).toBe(400);
  });

  it('reads settings with types and writes a change back keeping the rest of settings.py', async () => {
    const before = await file('demo/settings.py');
    const r = await m.api('GET', `/spiders/${spiderId}/scrapy/settings`);
    expect(r.status, r.body.error).toBe(200);
    const byKey = Object.fromEntries((r.body.data as any[]).map((s) => [s.key, s]));
    expect(byKey.BOT_NAME).toEqual({ key: 'BOT_NAME', value: 'demo', type: 'string' });
    expect(byKey.SPIDER_MODULES).toEqual({ key: 'SPIDER_MODULES', value: ['demo.spiders'], type: 'array' });
    expect(byKey.ROBOTSTXT_OBEY).toEqual({ key: 'ROBOTSTXT_OBEY', value: true, type: 'boolean' });

    const list = (r.body.data as any[]).map((s) => (s.key === 'ROBOTSTXT_OBEY' ? { ...s, value: false } : s));
    list.push({ key: 'DOWNLOAD_DELAY', value: '0.25', type: 'number' });
    list.push({ key: 'DEFAULT_REQUEST_HEADERS', value: { 'Accept-Language': 'en' }, type: 'object' });
    const w = await m.api('POST', `/spiders/${spiderId}/scrapy/settings`, { body: list });
    expect(w.status, w.body.error).toBe(200);
    const after = await file('demo/settings.py');
    expect(after).toContain('ROBOTSTXT_OBEY = False\n');
    expect(after).toContain('DOWNLOAD_DELAY = 0.25\n');
    expect(after).toContain('DEFAULT_REQUEST_HEADERS = {\n    "Accept-Language": "en",\n}\n');
    // everything else — comments, commented-out settings, other assignments — is untouched
    expect(after.replace('ROBOTSTXT_OBEY = False', 'ROBOTSTXT_OBEY = True').split('DOWNLOAD_DELAY = 0.25')[0]).toBe(
      before,
    );
    const again = Object.fromEntries(
      ((await m.api('GET', `/spiders/${spiderId}/scrapy/settings`)).body.data as any[]).map((s) => [s.key, s]),
    );
    expect(again.DOWNLOAD_DELAY).toEqual({ key: 'DOWNLOAD_DELAY', value: 0.25, type: 'number' });
    expect(again.ROBOTSTXT_OBEY.value).toBe(false);

    const bad = await m.api('POST', `/spiders/${spiderId}/scrapy/settings`, {
      body: [{ key: 'DOWNLOAD_DELAY', value: 'soon', type: 'number' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/DOWNLOAD_DELAY/);
  });

  it('edits the items tree into items.py', async () => {
    const r = await m.api('GET', `/spiders/${spiderId}/scrapy/items`);
    expect(r.status, r.body.error).toBe(200);
    expect(r.body.data).toEqual([{ name: 'DemoItem', fields: [] }]);
    const w = await m.api('POST', `/spiders/${spiderId}/scrapy/items`, {
      body: [
        { name: 'DemoItem', fields: ['title', 'price'] },
        { name: 'ReviewItem', fields: ['author', 'stars'] },
      ],
    });
    expect(w.status, w.body.error).toBe(200);
    expect(w.body.data).toEqual([
      { name: 'DemoItem', fields: ['title', 'price'] },
      { name: 'ReviewItem', fields: ['author', 'stars'] },
    ]);
    const text = await file('demo/items.py');
    expect(text).toContain('# define the fields for your item here like:');
    expect(text).toContain('    title = scrapy.Field()\n    price = scrapy.Field()\n');
    expect(text).toContain('class ReviewItem(scrapy.Item):\n    author = scrapy.Field()\n    stars = scrapy.Field()\n');
    const w2 = await m.api('POST', `/spiders/${spiderId}/scrapy/items`, {
      body: [{ name: 'DemoItem', fields: ['title', 'url'] }],
    });
    expect(w2.body.data).toEqual([{ name: 'DemoItem', fields: ['title', 'url'] }]);
    const t2 = await file('demo/items.py');
    expect(t2).not.toContain('ReviewItem');
    expect(t2).not.toContain('price');
    expect(
      (await m.api('POST', `/spiders/${spiderId}/scrapy/items`, { body: [{ name: 'Bad Name', fields: [] }] })).status,
    ).toBe(400);
  });

  it('lists pipelines and enables them through ITEM_PIPELINES', async () => {
    const r = await m.api('GET', `/spiders/${spiderId}/scrapy/pipelines`);
    expect(r.status, r.body.error).toBe(200);
    expect(r.body.data).toEqual([
      { name: 'demo.pipelines.DemoPipeline', priority: null, enabled: false, defined: true },
    ]);
    const w = await m.api('POST', `/spiders/${spiderId}/scrapy/pipelines`, {
      body: [
        { name: 'demo.pipelines.DemoPipeline', priority: 300, enabled: true },
        { name: 'demo.pipelines.CleanPipeline', priority: 400, enabled: true },
      ],
    });
    expect(w.status, w.body.error).toBe(200);
    expect(w.body.data).toEqual([
      { name: 'demo.pipelines.DemoPipeline', priority: 300, enabled: true, defined: true },
      { name: 'demo.pipelines.CleanPipeline', priority: 400, enabled: true, defined: true },
    ]);
    expect(await file('demo/pipelines.py')).toContain('class CleanPipeline:');
    expect(await file('demo/settings.py')).toContain(
      'ITEM_PIPELINES = {\n    "demo.pipelines.DemoPipeline": 300,\n    "demo.pipelines.CleanPipeline": 400,\n}',
    );
  });

  it('answers 422 with the reason for a broken project and for a spider that is no Scrapy project', async () => {
    await m.api('POST', `/spiders/${spiderId}/file`, {
      body: { path: 'demo/settings.py', content: 'BOT_NAME = "demo"\nFOO = (\n' },
    });
    const broken = await m.api('GET', `/spiders/${spiderId}/scrapy/settings`);
    expect(broken.status).toBe(422);
    expect(broken.body.error).toMatch(/settings.py line \d+/);
    const plain = await m.api('PUT', '/spiders', { body: { name: 'not-scrapy' } });
    const r = await m.api('GET', `/spiders/${plain.body.data._id}/scrapy/spiders`);
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/scrapy.cfg not found/);
  });
});

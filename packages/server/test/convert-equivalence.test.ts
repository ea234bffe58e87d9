import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestMaster, type TestMaster } from './harness.ts';
import { scrapyProjectFor } from '../src/features/config-spider/convert.ts';

const run = promisify(execFile);
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node/bin/crawldeck-config-spider');
const PAGES = 5;
const PER_PAGE = 10;
const AUTHORS = 4;

/**
 * A quotes site on loopback: PAGES pages of PER_PAGE quotes, each quote links to one of only AUTHORS author pages,
 * so most detail links point at a page already visited (the case Scrapy's duplicate filter used to drop).
 * /author/3 answers 404: its rows keep what the list page gave.
 */
async function startQuotesSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const html = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><body>${body}</body></html>`);
    };
    if (u.pathname === '/robots.txt') return html(404, '');
    if (u.pathname === '/quotes') {
      const page = Number(u.searchParams.get('page') ?? 1);
      const quotes = Array.from({ length: PER_PAGE }, (_, i) => {
        const n = (page - 1) * PER_PAGE + i;
        return `<div class="quote"><span class="text">Quote ${n}</span><a class="author" href="/author/${n % AUTHORS}">about</a></div>`;
      }).join('');
      const next = page < PAGES ? `<li class="next"><a href="/quotes?page=${page + 1}">Next</a></li>` : '';
      return html(200, `${quotes}<ul class="pager">${next}</ul>`);
    }
    const m = /^\/author\/(\d+)$/.exec(u.pathname);
    if (m && Number(m[1]) < AUTHORS - 1)
      return html(200, `<h3 class="name">Author ${m[1]}</h3><span class="born">19${m[1]}0</span>`);
    return html(404, 'not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let m: TestMaster;
let site: Awaited<ReturnType<typeof startQuotesSite>>;
let work: string;
beforeAll(async () => {
  [m, site] = await Promise.all([startTestMaster(), startQuotesSite()]);
  work = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-convert-'));
});
afterAll(async () => {
  await m?.close();
  await site?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const readJsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, string>);
const canonical = (rows: Record<string, string>[]) =>
  rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort()))).sort();

describe('convert to customized', () => {
  it('the generated Scrapy project yields exactly the items of the configurable spider', async () => {
    const created = await m.api('PUT', '/config_spiders', {
      body: { name: 'quotes', start_url: `${site.url}/quotes` },
    });
    const id = created.body.data._id;
    const saved = await m.api('POST', `/config_spiders/${id}/config`, {
      body: {
        start_url: `${site.url}/quotes`,
        start_stage: 'list',
        settings: { MAX_PAGES: 10, ROBOTSTXT_OBEY: true },
        stages: [
          {
            name: 'list',
            is_list: true,
            list_css: 'div.quote',
            page_css: 'li.next a',
            fields: [
              { name: 'text', css: 'span.text' },
              { name: 'author_url', css: 'a.author', attr: 'href', next_stage: 'author' },
            ],
          },
          {
            name: 'author',
            fields: [
              { name: 'name', css: 'h3.name' },
              { name: 'born', css: 'span.born' },
            ],
          },
        ],
      },
    });
    expect(saved.status, saved.body.error).toBe(200);

    const cfgDir = path.join(work, 'configurable');
    mkdirSync(cfgDir);
    writeFileSync(path.join(cfgDir, 'Spiderfile'), saved.body.data.content);
    await run(BIN, ['Spiderfile'], {
      cwd: cfgDir,
      env: { ...process.env, CRAWLDECK_ITEMS: path.join(cfgDir, 'items.jsonl') },
      timeout: 60_000,
    });
    const configurable = readJsonLines(path.join(cfgDir, 'items.jsonl'));
    expect(configurable).toHaveLength(PAGES * PER_PAGE);

    const project = scrapyProjectFor(saved.body.data.spiderfile);
    const scrapyDir = path.join(work, 'scrapy');
    for (const f of project.files) {
      mkdirSync(path.dirname(path.join(scrapyDir, f.path)), { recursive: true });
      writeFileSync(path.join(scrapyDir, f.path), f.content);
    }
    await run(
      '/usr/bin/python3',
      ['-m', 'scrapy', 'crawl', project.spiderName, '-o', 'items.jsonl:jsonlines', '-s', 'LOG_LEVEL=WARNING'],
      { cwd: scrapyDir, timeout: 120_000 },
    );
    const generated = readJsonLines(path.join(scrapyDir, 'items.jsonl'));

    expect(generated).toHaveLength(configurable.length);
    expect(canonical(generated)).toEqual(canonical(configurable));
    // the rows of the author page that answers 404 keep the list page's fields, in both
    expect(configurable.filter((r) => r.author_url.endsWith('/author/3') && !('born' in r))).toHaveLength(
      Array.from({ length: PAGES * PER_PAGE }, (_, n) => n % AUTHORS).filter((a) => a === AUTHORS - 1).length,
    );
  }, 180_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
let consoleDir: string;

const CHUNKS = {
  en: ['assets/bundle-en-Ab12Cd34.js'],
  zh: ['assets/bundle-zh-Ef56Gh78.js', 'assets/zh_CN-Ij90Kl12.js'],
};
// a built index.html as the build leaves it, long enough (over 1 kB) to be sent compressed
const INDEX = `<!doctype html>
<html lang="zh">
  <head>
    <title>Crawldeck</title>
    <style>${'#app-loading { color: #304156; }\n'.repeat(40)}</style>
    <script type="module" crossorigin src="/assets/index-Mn34Op56.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/react-Qr78St90.js">
  </head>
  <body><div id="root"></div></body>
</html>
`;

beforeAll(async () => {
  consoleDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-console-'));
  mkdirSync(path.join(consoleDir, 'assets'));
  writeFileSync(path.join(consoleDir, 'index.html'), INDEX);
  writeFileSync(path.join(consoleDir, 'language-chunks.json'), JSON.stringify(CHUNKS));
  for (const f of [...CHUNKS.en, ...CHUNKS.zh, 'assets/index-Mn34Op56.js'])
    writeFileSync(path.join(consoleDir, f), 'export {};');
  m = await startTestMaster({ consoleDir });
});
afterAll(async () => {
  await m?.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

function rawGet(route: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.get(new URL(route, m.url), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

/** The module preloads a page names, in order. */
function preloads(html: string): string[] {
  return [...html.matchAll(/<link rel="modulepreload" crossorigin href="\/([^"]+)">/g)].map((x) => x[1]);
}

async function page(route: string, cookie?: string): Promise<string> {
  const r = await rawGet(route, cookie === undefined ? {} : { cookie });
  expect(r.status, route).toBe(200);
  expect(r.headers['content-type'], route).toMatch(/^text\/html/);
  return r.body.toString();
}

describe('console index.html with the language chunk preloaded', () => {
  it('the lang cookie chooses the preloaded chunk, on the root, index.html and deep links', async () => {
    for (const route of ['/', '/index.html', '/spiders/abc?tab=files', '/login']) {
      expect(preloads(await page(route, 'lang=en')), route).toEqual([...CHUNKS.en, 'assets/react-Qr78St90.js']);
      expect(preloads(await page(route, 'lang=zh')), route).toEqual([...CHUNKS.zh, 'assets/react-Qr78St90.js']);
    }
  });

  it('finds the cookie among others', async () => {
    expect(preloads(await page('/home', 'sidebarStatus=1; lang=en; uid=x'))).toContain(CHUNKS.en[0]);
    expect(preloads(await page('/home', 'sidebarStatus=1;lang=en'))).toContain(CHUNKS.en[0]);
    // a cookie whose name merely ends in lang is another cookie
    expect(preloads(await page('/home', 'xlang=en'))).toContain(CHUNKS.zh[0]);
  });

  it('without the cookie, or with a value the console does not speak, preloads the default language', async () => {
    for (const cookie of [undefined, '', 'lang=', 'lang=fr', 'lang=EN', 'lang=en-US', 'lang=%3Cscript%3E', 'lang']) {
      const links = preloads(await page('/home', cookie));
      expect(links, String(cookie)).toEqual([...CHUNKS.zh, 'assets/react-Qr78St90.js']);
    }
  });

  it('keeps the rest of the page as built, the preloads before its script', async () => {
    const html = await page('/', 'lang=en');
    expect(html.replace(/\s*<link rel="modulepreload" crossorigin href="\/assets\/bundle-en-[^"]+">/, '')).toBe(INDEX);
    expect(html.indexOf(CHUNKS.en[0])).toBeLessThan(html.indexOf('index-Mn34Op56.js'));
  });

  it('is revalidated on every load, varies by cookie and goes compressed', async () => {
    const r = await rawGet('/home', { cookie: 'lang=en', 'accept-encoding': 'br' });
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(String(r.headers.vary).toLowerCase()).toContain('cookie');
    expect(r.headers['content-encoding']).toBe('br');
    expect(preloads(brotliDecompressSync(r.body).toString())).toContain(CHUNKS.en[0]);
    const gz = await rawGet('/home', { cookie: 'lang=en', 'accept-encoding': 'gzip, deflate' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(preloads(gunzipSync(gz.body).toString())).toContain(CHUNKS.en[0]);
    const plain = await rawGet('/home', { cookie: 'lang=en', 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(preloads(plain.body.toString())).toContain(CHUNKS.en[0]);
  });

  it('still serves the chunks themselves and answers unknown API paths with JSON', async () => {
    const chunk = await rawGet(`/${CHUNKS.en[0]}`);
    expect(chunk.status).toBe(200);
    expect(chunk.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const api = await rawGet('/api/no-such-route', { cookie: 'lang=en' });
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toMatch(/^application\/json/);
  });
});

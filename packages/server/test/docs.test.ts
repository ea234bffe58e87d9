import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster();
});
afterAll(async () => {
  await m?.close();
});

function rawStatus(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(m.url);
    const req = http.request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, m.url), { headers, redirect: 'manual' });

describe('documentation served by the master', () => {
  it('every URL GET /api/docs names is a page in English and in Chinese, under the strict CSP', async () => {
    const map = JSON.parse((await m.api('GET', '/docs')).body.data.string) as Record<
      string,
      { title: string; url: string }
    >;
    expect(Object.keys(map).length).toBeGreaterThan(10);
    for (const { url } of Object.values(map)) {
      for (const lang of ['en', 'zh']) {
        const res = await get(`${url}?lang=${lang}`);
        const html = await res.text();
        expect(res.status, `${url} ${lang}`).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
        expect(html).toContain(`<html lang="${lang === 'zh' ? 'zh-CN' : 'en'}">`);
        expect(html, `${url} ${lang}`).not.toMatch(/has not been written yet|尚未编写/);
        // the page is no console shell
        expect(html).not.toContain('id="root"');
      }
    }
  });

  it('renders the markdown, keeps the language in links, and chooses the language from the browser', async () => {
    const en = await (await get('/docs/node/multi-node.html?lang=en')).text();
    expect(en).toContain('<h1>Multi-node deployment</h1>');
    expect(en).toContain('<code>CRAWLDECK_NODE_KEY</code>');
    expect(en).not.toMatch(/docker pull/i);
    const zh = await (await get('/docs/node/multi-node.html', { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' })).text();
    expect(zh).toContain('<h1>多节点部署</h1>');
    expect(zh).toContain('href="/docs/node/multi-node.html?lang=en"');
    const spider = await (await get('/docs/spider/index.html?lang=zh')).text();
    expect(spider).toContain('href="../sdk/?lang=zh"');
    const section = await (await get('/docs/sdk/?lang=en')).text();
    expect(section).toContain('href="/docs/sdk/python.html?lang=en"');
    const top = await get('/docs');
    expect(top.status).toBe(302);
    expect(top.headers.get('location')).toBe('/docs/');
    expect((await get('/docs/')).status).toBe(200);
    const css = await get('/docs/docs.css');
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('unknown pages answer 404; a path cannot leave the guide', async () => {
    expect((await get('/docs/nope.html')).status).toBe(404);
    // sent as written (fetch would normalise the dot segments away before they reach the master)
    for (const raw of ['/docs/%2e%2e/package.json', '/docs/node/..%2f..%2fREADME.md'])
      expect(await rawStatus(raw), raw).toBe(404);
    const { DocsSite } = await import('../src/features/docs/docs.service.ts');
    expect(new DocsSite('/docs').page('/node/../../README.md', 'en')).toBeUndefined();
  });
});

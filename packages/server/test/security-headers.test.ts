import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

/** Every answer of the master carries the browser security headers, whatever served it and whatever its status. */
let m: TestMaster;
let consoleDir: string;
beforeAll(async () => {
  consoleDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-console-'));
  mkdirSync(path.join(consoleDir, 'assets'));
  writeFileSync(
    path.join(consoleDir, 'index.html'),
    '<!doctype html><script type="module" src="/assets/app.js"></script>',
  );
  writeFileSync(path.join(consoleDir, 'assets/app.js'), 'console.log(1)');
  m = await startTestMaster({ consoleDir });
});
afterAll(async () => {
  await m?.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

function directives(csp: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (csp ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name, values);
  }
  return map;
}

function expectSecurityHeaders(where: string, headers: Headers): void {
  const csp = directives(headers.get('content-security-policy'));
  expect(csp.get('script-src'), where).toEqual(["'self'"]);
  expect(csp.get('script-src-attr'), where).toEqual(["'none'"]);
  expect(csp.get('default-src'), where).toEqual(["'self'"]);
  expect(csp.get('connect-src'), where).toEqual(["'self'"]);
  expect(csp.get('img-src'), where).toEqual(["'self'", 'data:']);
  expect(csp.get('object-src'), where).toEqual(["'none'"]);
  expect(csp.get('frame-ancestors'), where).toEqual(["'none'"]);
  expect(csp.get('base-uri'), where).toEqual(["'self'"]);
  // a console served over plain HTTP must keep loading its own assets
  expect(csp.has('upgrade-insecure-requests'), where).toBe(false);
  expect(headers.get('x-frame-options'), where).toBe('DENY');
  expect(headers.get('x-content-type-options'), where).toBe('nosniff');
  expect(headers.get('referrer-policy'), where).toBe('no-referrer');
  expect(headers.get('strict-transport-security'), where).toBeNull();
}

describe('security headers', () => {
  it('are on the console, its assets and deep links', async () => {
    for (const p of ['/', '/index.html', '/assets/app.js', '/spiders/abc?tab=files', '/nodes']) {
      const res = await fetch(`${m.url}${p}`);
      expect(res.status, p).toBe(200);
      expectSecurityHeaders(p, res.headers);
    }
  });

  it('are on API answers of every status', async () => {
    const cases: [string, string, string | null, unknown, number][] = [
      ['GET', '/version', null, undefined, 200],
      ['GET', '/me', m.adminToken, undefined, 200],
      ['GET', '/me', null, undefined, 401],
      ['GET', '/me', 'not-a-token', undefined, 401],
      ['POST', '/login', null, { username: 'admin' }, 400],
      ['GET', '/spiders/000000000000000000000000', m.adminToken, undefined, 404],
      ['GET', '/no-such-route', m.adminToken, undefined, 404],
    ];
    for (const [method, route, token, body, status] of cases) {
      const r = await m.api(method, route, { token, body });
      expect(r.status, `${method} ${route}`).toBe(status);
      expectSecurityHeaders(`${method} ${route}`, r.headers);
    }
  });

  it('are on the event stream, which writes its own head', async () => {
    const ac = new AbortController();
    const res = await fetch(`${m.url}/api/events`, { headers: { authorization: m.adminToken }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    expectSecurityHeaders('/api/events', res.headers);
    ac.abort();
  });

  it('are on the OpenAPI page and its assets, whose scripts are files', async () => {
    const page = await fetch(`${m.url}/api/openapi`);
    expect(page.status).toBe(200);
    expectSecurityHeaders('/api/openapi', page.headers);
    const html = await page.text();
    // every <script> of the page has a src: nothing inline that the policy would block
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect(s).toMatch(/\ssrc=/);
    for (const p of [
      '/api/openapi/json',
      '/api/openapi/static/swagger-ui-bundle.js',
      '/api/openapi/static/swagger-initializer.js',
    ]) {
      const res = await fetch(`${m.url}${p}`);
      expect(res.status, p).toBe(200);
      expectSecurityHeaders(p, res.headers);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
let consoleDir: string;
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(5000))});\n`;

beforeAll(async () => {
  // a built console as the build leaves it: hashed assets with their precompressed copies
  consoleDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-console-'));
  mkdirSync(path.join(consoleDir, 'assets'));
  writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><html><body><div id="root"></div></body></html>');
  writeFileSync(path.join(consoleDir, 'assets/index-Ab12Cd34.js'), SCRIPT);
  writeFileSync(path.join(consoleDir, 'assets/index-Ab12Cd34.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(path.join(consoleDir, 'assets/index-Ab12Cd34.js.gz'), gzipSync(SCRIPT));
  m = await startTestMaster({ consoleDir });
});
afterAll(async () => {
  await m?.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

/** A raw GET (fetch would decode the body and hide the encoding). */
function rawGet(
  route: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(route, m.url), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

describe('compressed answers and cache headers', () => {
  it('serves the precompressed copy of a hashed asset, cached for a year as immutable', async () => {
    const br = await rawGet('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gz = await rawGet('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    const plain = await rawGet('/assets/index-Ab12Cd34.js', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
  });

  it('index.html and deep links are revalidated on every load', async () => {
    for (const route of ['/', '/spiders/abc']) {
      const r = await rawGet(route, { 'accept-encoding': 'br' });
      expect(r.status).toBe(200);
      expect(r.headers['cache-control'], route).toBe('no-cache');
    }
  });

  it('compresses API answers over 1 kB with brotli or gzip, as the client asks', async () => {
    for (let i = 0; i < 20; i++)
      await m.api('PUT', '/projects', { body: { name: `project-${i}`, description: 'd'.repeat(100) } });
    const headers = { authorization: m.adminToken };
    const br = await rawGet('/api/projects', { ...headers, 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    const data = JSON.parse(brotliDecompressSync(br.body).toString()).data;
    expect(data.length).toBeGreaterThanOrEqual(20);
    const gz = await rawGet('/api/projects', { ...headers, 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).length).toBeGreaterThan(gz.body.length * 3);
    // small answers go as they are
    const small = await rawGet('/api/version', { 'accept-encoding': 'br' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('event streams are never held back by a compressor', async () => {
    const r = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(
        new URL('/api/events', m.url),
        { headers: { authorization: m.adminToken, 'accept-encoding': 'br, gzip' } },
        resolve,
      );
      req.on('error', reject);
    });
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(r.headers['content-encoding']).toBeUndefined();
    const first = await new Promise<string>((resolve) => r.once('data', (c: Buffer) => resolve(c.toString())));
    expect(first).toMatch(/^retry: /);
    r.destroy();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startTestMaster, type TestMaster } from './harness.ts';

/**
 * Hard budgets of a configurable-spider preview and field suggestion on the master: bytes per answer and wall
 * time hold whatever the Spiderfile says (its TIMEOUT and DOWNLOAD_DELAY can only make a preview shorter).
 */

const BUDGET_MS = 3000;
const CHUNK = Buffer.alloc(64 * 1024, '<p>endless</p>');
const LIST =
  '<html><body><ul><li class="row"><b>one</b></li><li class="row"><b>two</b></li></ul><a class="next" href="/list?p=2">next</a></body></html>';

let m: TestMaster;
let server: http.Server;
let base: string;
let id: string;
const sockets = new Set<Socket>();
const previousBudget = process.env.CRAWLDECK_PREVIEW_TIMEOUT_MS;

beforeAll(async () => {
  process.env.CRAWLDECK_PREVIEW_TIMEOUT_MS = String(BUDGET_MS);
  server = http.createServer((req, res) => {
    if (req.url?.startsWith('/endless')) {
      // an answer that never ends: writes as fast as the reader takes it, until the reader hangs up
      res.writeHead(200, { 'content-type': 'text/html' });
      const pump = () => {
        while (!res.destroyed && res.write(CHUNK));
      };
      res.on('drain', pump);
      pump();
    } else if (req.url?.startsWith('/silent')) {
      // accepts the request and never answers
    } else {
      res.end(LIST);
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  m = await startTestMaster();
  const created = await m.api('PUT', '/config_spiders', {
    body: { name: 'budget', template: 'list', start_url: `${base}/list` },
  });
  expect(created.status, created.body.error).toBe(200);
  id = created.body.data._id;
});
afterAll(async () => {
  if (previousBudget === undefined) delete process.env.CRAWLDECK_PREVIEW_TIMEOUT_MS;
  else process.env.CRAWLDECK_PREVIEW_TIMEOUT_MS = previousBudget;
  await m?.close();
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

const spiderfile = (path: string, settings: Record<string, unknown> = {}) => ({
  start_url: `${base}${path}`,
  start_stage: 'list',
  settings: { ROBOTSTXT_OBEY: false, ...settings },
  stages: [
    { name: 'list', is_list: true, list_css: 'li.row', page_css: 'a.next', fields: [{ name: 'text', css: 'b' }] },
  ],
});

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = Date.now();
  const result = await work();
  return { result, ms: Date.now() - start };
}

describe('preview budgets', () => {
  it('stops reading an endless answer at 5 MiB and answers with the reason, with a bounded memory ceiling', async () => {
    globalThis.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const { result: r, ms } = await timed(() =>
      m.api('POST', `/spiders/${id}/preview_crawl`, { body: { spiderfile: spiderfile('/endless') } }),
    );
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const growthMiB = (peak - baseline) / (1024 * 1024);
    console.log(
      `endless-body preview: ${ms} ms, RSS ${Math.round(baseline / 1048576)} MiB → peak ${Math.round(peak / 1048576)} MiB (+${growthMiB.toFixed(1)} MiB)`,
    );
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/is larger than 5 MiB; reading stopped there/);
    expect(ms).toBeLessThan(BUDGET_MS + 5000);
    expect(growthMiB).toBeLessThan(150);
  });

  it('answers within the preview budget when the page never answers, whatever the Spiderfile TIMEOUT', async () => {
    const { result: r, ms } = await timed(() =>
      m.api('POST', `/spiders/${id}/preview_crawl`, { body: { spiderfile: spiderfile('/silent', { TIMEOUT: 3600 }) } }),
    );
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/did not answer within the preview time budget of 3 s/);
    expect(ms).toBeGreaterThanOrEqual(BUDGET_MS - 100);
    expect(ms).toBeLessThan(BUDGET_MS + 5000);
  });

  it('answers a field suggestion of a silent page within the budget', async () => {
    await m.api('POST', `/config_spiders/${id}/config`, { body: spiderfile('/silent', { TIMEOUT: 3600 }) });
    const { result: r, ms } = await timed(() => m.api('POST', `/spiders/${id}/extract_fields`, { body: {} }));
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/did not answer within the preview time budget/);
    expect(ms).toBeLessThan(BUDGET_MS + 5000);
  });

  it('does not let DOWNLOAD_DELAY outlast the budget: the rows found so far come back in time', async () => {
    const { result: r, ms } = await timed(() =>
      m.api('POST', `/spiders/${id}/preview_crawl`, {
        body: { items: 50, spiderfile: spiderfile('/list', { DOWNLOAD_DELAY: 3600, MAX_PAGES: 5 }) },
      }),
    );
    expect(r.status, r.body.error).toBe(200);
    expect(r.body.data.rows.map((row: { text: string }) => row.text)).toEqual(['one', 'two']);
    expect(ms).toBeLessThan(BUDGET_MS + 5000);
  });
});

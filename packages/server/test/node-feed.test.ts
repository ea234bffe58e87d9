import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { waitFor } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { SseReader, type SseEvent } from './support/sse-reader.ts';
import { NODE_FEED_INTERVAL_MS } from '../src/features/execution/node-feed.ts';
import { nodeListFor } from '../src/features/nodes/node-list.ts';

// The console's node feed: node changes gathered per interval, each console hearing only what its screen shows.
let m: TestMaster;
let viewer: string;
const KEY = 'feed-key';
const sims: SimNode[] = [];

beforeAll(async () => {
  // A long heartbeat flush: the node list's periodic re-read stays out of the counted window.
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, nodeHeartbeatMs: 60_000, nodeOfflineMs: 600_000 });
  viewer = await m.createUser('feed-viewer');
  for (let i = 0; i < 5; i++) sims.push(new SimNode({ master: m.url, key: KEY, name: `feed-${i}` }));
  await Promise.all(sims.map((s) => s.connect()));
  await waitFor('every node listed', async () => (await m.api('GET', '/nodes')).body.data?.length === sims.length);
});
afterAll(async () => {
  for (const s of sims) s.close();
  await m?.close();
});

async function subscribe(query = ''): Promise<SseReader> {
  const res = await fetch(`${m.url}/api/events${query}`, { headers: { authorization: viewer } });
  expect(res.status).toBe(200);
  return new SseReader(res);
}

type Change = { nodeId: string; status: string; metrics?: { cpu: number }; last_seen_ts?: string };
const changes = (e: SseEvent) => e.data.nodes as Change[];
const hasCpu = (nodeId: string, cpu: number) => (e: SseEvent) =>
  e.event === 'nodes' && changes(e).some((c) => c.nodeId === nodeId && c.metrics?.cpu === cpu);

describe('GET /api/events node feed', () => {
  it('gathers many heartbeats into at most one nodes event per interval, with metrics of watched nodes only', async () => {
    const [a, b] = sims;
    const watching = await subscribe(`?nodes=${a.nodeId},${b.nodeId}`);
    const statusOnly = await subscribe();
    const t0 = Date.now();
    const rounds = 4;
    for (let round = 1; round <= rounds; round++) {
      // A burst of beats from every node; the last beat of node a in this round carries the round's mark.
      for (let i = 0; i < 20; i++) for (const s of sims) s.heartbeat({ cpu: 50 });
      for (const s of sims) s.heartbeat({ cpu: 60 + round });
      await watching.until(hasCpu(a.nodeId, 60 + round));
    }
    const elapsed = Date.now() - t0;
    const batches = watching.named('nodes');
    // 420 heartbeats, yet no more node events than intervals passed (plus the one in progress at the start).
    expect(batches.length).toBeGreaterThanOrEqual(rounds);
    expect(batches.length).toBeLessThanOrEqual(Math.floor(elapsed / NODE_FEED_INTERVAL_MS) + 1);
    for (let i = 1; i < batches.length; i++) {
      const gap = Date.parse(batches[i].data.ts) - Date.parse(batches[i - 1].data.ts);
      expect(gap).toBeGreaterThanOrEqual(NODE_FEED_INTERVAL_MS - 20);
    }
    const watched = new Set([a.nodeId, b.nodeId]);
    const all = batches.flatMap(changes);
    expect(all.filter((c) => c.metrics).every((c) => watched.has(c.nodeId))).toBe(true);
    expect(all.some((c) => c.nodeId === b.nodeId && c.metrics && c.last_seen_ts)).toBe(true);
    // Latest values only: one entry per node per event.
    for (const e of batches) expect(new Set(changes(e).map((c) => c.nodeId)).size).toBe(changes(e).length);
    // The stream that asked for nothing hears of a status change, and of nothing the heartbeats said.
    const quiet = sims[4];
    await m.api('POST', `/nodes/${quiet.nodeId}`, { body: { enabled: false } });
    await statusOnly.until(
      (e) => e.event === 'nodes' && changes(e).some((c) => c.nodeId === quiet.nodeId && c.status === 'unavailable'),
    );
    const heard = statusOnly.named('nodes').flatMap(changes);
    expect(heard.map((c) => c.nodeId)).toEqual([quiet.nodeId]);
    expect(heard.every((c) => !c.metrics && !c.last_seen_ts)).toBe(true);
    await m.api('POST', `/nodes/${quiet.nodeId}`, { body: { enabled: true } });
    await statusOnly.until((e) => e.event === 'nodes' && changes(e).some((c) => c.status === 'online'));
    await statusOnly.close();
    await watching.close();
    expect(watching.named('node.heartbeat')).toEqual([]);
  });

  it('never loses a status change, of any node, whatever the stream watches', async () => {
    const [, , c, d, e] = sims;
    const stream = await subscribe(`?nodes=${sims[0].nodeId}`);
    // Three nodes change status within one interval, one of them twice.
    for (const s of [c, d, e]) {
      expect((await m.api('POST', `/nodes/${s.nodeId}`, { body: { enabled: false } })).status).toBe(200);
    }
    expect((await m.api('POST', `/nodes/${e.nodeId}`, { body: { enabled: true } })).status).toBe(200);
    const latest = new Map<string, string>();
    const statusesUntil = (done: () => boolean) =>
      stream.until((ev) => {
        if (ev.event === 'nodes') for (const ch of changes(ev)) latest.set(ch.nodeId, ch.status);
        return done();
      });
    await statusesUntil(
      () => latest.get(c.nodeId) === 'unavailable' && latest.get(d.nodeId) === 'unavailable' && latest.has(e.nodeId),
    );
    // Node e ends online, whichever intervals its two changes fell in.
    await statusesUntil(() => latest.get(e.nodeId) === 'online');
    // Unwatched nodes come with their status alone.
    const about = stream.named('nodes').flatMap(changes);
    expect(about.filter((ch) => ch.nodeId !== sims[0].nodeId).every((ch) => !ch.metrics)).toBe(true);
    for (const s of [c, d]) await m.api('POST', `/nodes/${s.nodeId}`, { body: { enabled: true } });
    await statusesUntil(() => latest.get(c.nodeId) === 'online' && latest.get(d.nodeId) === 'online');
    await stream.close();
  });

  it('refuses a malformed or too long list of watched nodes with 400', async () => {
    for (const q of [
      '?nodes=xyz',
      `?nodes=${sims[0].nodeId},`,
      `?nodes=${Array(101).fill(sims[0].nodeId).join(',')}`,
    ]) {
      const res = await fetch(`${m.url}/api/events${q}`, { headers: { authorization: viewer } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/nodes/);
    }
  });
});

describe('GET /api/nodes list parameters', () => {
  it('answers the whole fleet without parameters, host facts summarised, the rest in the node detail', async () => {
    const r = await m.api('GET', '/nodes', { token: viewer });
    expect(r.body.total).toBe(sims.length);
    const row = r.body.data.find((n: { _id: string }) => n._id === sims[0].nodeId);
    expect(row.systemInfo).toEqual({ os: 'linux', arch: 'x64', num_cpu: 2, hostname: 'sim' });
    const one = await m.api('GET', `/nodes/${sims[0].nodeId}`, { token: viewer });
    expect(one.body.data.systemInfo).toMatchObject({ executables: [], python: '' });
  });

  it('pages, filters by keyword and by live status, and counts the matches', async () => {
    const whole = (await m.api('GET', '/nodes')).body.data.map((n: { _id: string }) => n._id);
    const page2 = await m.api('GET', '/nodes', { query: { page_num: 2, page_size: 2 } });
    expect(page2.body.total).toBe(sims.length);
    expect(page2.body.data.map((n: { _id: string }) => n._id)).toEqual(whole.slice(2, 4));
    const named = await m.api('GET', '/nodes', { query: { keyword: ' FEED-3 ', page_size: 10 } });
    expect(named.body.data.map((n: { name: string }) => n.name)).toEqual(['feed-3']);
    expect(named.body.total).toBe(1);

    const target = sims[1];
    expect((await m.api('POST', `/nodes/${target.nodeId}`, { body: { enabled: false, name: 'renamed' } })).status).toBe(
      200,
    );
    // An edit shows at once: no stale list after a change.
    const off = await m.api('GET', '/nodes', { query: { status: 'unavailable' } });
    expect(off.body.data.map((n: { name: string }) => n.name)).toEqual(['renamed']);
    const on = await m.api('GET', '/nodes', { query: { status: 'online', page_size: 100 } });
    expect(on.body.total).toBe(sims.length - 1);
    await m.api('POST', `/nodes/${target.nodeId}`, { body: { enabled: true } });
    expect((await m.api('GET', '/nodes', { query: { status: 'unavailable' } })).body.total).toBe(0);
  });

  it('answers from memory between changes: heartbeats and requests read no rows, an edit reads them once', async () => {
    const ctx = m.master.ctx;
    const list = nodeListFor(ctx, ctx.execution);
    await m.api('GET', '/nodes');
    const reads = list.reads;
    for (let i = 0; i < 10; i++) {
      for (const s of sims) s.heartbeat({ cpu: 70 + i });
      await m.api('GET', '/nodes', { query: { page_num: 1, page_size: 2 } });
    }
    // The latest heartbeat shows through the live sessions, without a read of the stored rows.
    await waitFor('the last beat in the list', async () => {
      const rows = (await m.api('GET', '/nodes')).body.data as { metrics: { cpu: number } | null }[];
      return rows.every((n) => n.metrics?.cpu === 79);
    });
    expect(list.reads - reads).toBe(0);
    const before = list.reads;
    await m.api('POST', `/nodes/${sims[2].nodeId}`, { body: { description: 'edited' } });
    const rows = (await m.api('GET', '/nodes')).body.data as { _id: string; description: string }[];
    expect(rows.find((n) => n._id === sims[2].nodeId)?.description).toBe('edited');
    expect(list.reads - before).toBeGreaterThanOrEqual(1);
  });

  it('refuses out-of-bounds paging and unknown filters with 400 and a message', async () => {
    const bad: Record<string, unknown>[] = [
      { page_size: 0 },
      { page_size: 101 },
      { page_num: 0 },
      { page_num: 'x' },
      { status: 'asleep' },
      { keyword: 'k'.repeat(101) },
    ];
    for (const query of bad) {
      const r = await m.api('GET', '/nodes', { query });
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.error).toBeTruthy();
    }
  });
});

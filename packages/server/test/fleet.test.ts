import { beforeAll, describe, expect, it } from 'vitest';
import type { TestMaster } from './harness.ts';
import { makeSpider, waitFor } from './tasks.helpers.ts';
import { useSimFleet } from './support/sim-fleet.ts';
import type { TaskRuntime } from '../src/features/execution/runtime.ts';
import {
  countMetrics,
  deleteMetricsChunk,
  getNode,
  insertMetrics,
  RETENTION_ROWS,
} from '../src/features/execution/node-state.store.ts';
import { MINUTE_MS, nextRetentionRows } from '../src/features/execution/heartbeats.ts';

// Costs that must not grow with the fleet: counted store statements and claims, not timings.
const simFleet = useSimFleet('fleet-key');
const join = (count: number) => simFleet.join(count);
let m: TestMaster;
let rt: TaskRuntime;
beforeAll(() => {
  m = simFleet.master;
  rt = simFleet.runtime;
});

describe('heartbeats at fleet scale', () => {
  it('a heartbeat writes nothing by itself; a minute of beats becomes one history row per node', async () => {
    const fleet = await join(20);
    const statusWrites = rt.statusWrites;
    for (let i = 0; i < 30; i++) for (const s of fleet) s.heartbeat();
    for (const s of fleet) s.heartbeat({ cpu: 99 });
    // Messages of one node are handled in order: when every node shows its last beat, all beats are in.
    await waitFor('the last beat of every node', async () => {
      const nodes = (await m.api('GET', '/nodes')).body.data as { _id: string; metrics: { cpu: number } | null }[];
      const ids = new Set(fleet.map((s) => s.nodeId));
      return nodes.filter((n) => ids.has(n._id) && n.metrics?.cpu === 99).length === fleet.length;
    });
    expect(rt.statusWrites).toBe(statusWrites);
    const before = { ...rt.heartbeats.writes };
    expect(await countMetrics(m.master.store.db)).toBe(0);

    // The minute in progress is shown from memory before it is stored.
    const sys = await m.api('GET', `/nodes/${fleet[0].nodeId}/system`);
    expect(sys.body.data.metrics).toHaveLength(1);
    expect(sys.body.data.current.cpu).toBe(99);

    await rt.heartbeats.flush(Date.now() + MINUTE_MS);
    expect(rt.heartbeats.writes.lastSeen - before.lastSeen).toBe(1);
    expect(rt.heartbeats.writes.metricsRows - before.metricsRows).toBe(fleet.length);
    expect(await countMetrics(m.master.store.db)).toBe(fleet.length);
    // The latest metrics reach the node rows (for other masters and views reading the store) in the same flush.
    for (const s of fleet) expect(JSON.parse((await getNode(m.master.store.db, s.nodeId))!.metrics).cpu).toBe(99);
    // A flush with nothing heard writes nothing.
    await rt.heartbeats.flush(Date.now() + MINUTE_MS);
    expect(rt.heartbeats.writes.lastSeen - before.lastSeen).toBe(1);
    expect(await countMetrics(m.master.store.db)).toBe(fleet.length);
  });

  it('retention deletes old history in bounded chunks and keeps the recent rows', async () => {
    const [node] = await join(1);
    const db = m.master.store.db;
    const old = Date.now() - 3 * 24 * 3600_000;
    const rows = Array.from({ length: 12_000 }, (_, i) => ({
      node_id: node.nodeId,
      ts: old + i * 1000,
      cpu: 1,
      mem: 1,
      disk: 1,
      running: 0,
    }));
    await insertMetrics(db, rows);
    await insertMetrics(db, [
      { node_id: node.nodeId, ts: Date.now() - MINUTE_MS, cpu: 2, mem: 2, disk: 2, running: 0 },
    ]);
    const kept = await countMetrics(db);
    const chunks = rt.heartbeats.writes.retention;
    expect(await rt.heartbeats.retain()).toBe(12_000);
    // Statements of at most RETENTION_ROWS.max rows, the last one finding fewer rows than it asked for.
    expect(rt.heartbeats.writes.retention - chunks).toBeGreaterThanOrEqual(Math.ceil(12_000 / RETENTION_ROWS.max));
    expect(await countMetrics(db)).toBe(kept - 12_000);
  });

  it('one retention statement deletes no more rows than asked, also when a minute holds more (one row a node)', async () => {
    const nodes = await join(30);
    const db = m.master.store.db;
    // Within the retention window, so that the master's own retention leaves them to the test.
    const old = Math.floor((Date.now() - 2 * 3600_000) / MINUTE_MS) * MINUTE_MS;
    const minute = (k: number) =>
      nodes.map((n) => ({ node_id: n.nodeId, ts: old + k * MINUTE_MS, cpu: 1, mem: 1, disk: 1, running: 0 }));
    await insertMetrics(db, [...minute(0), ...minute(1), ...minute(2)]);
    const before = await countMetrics(db);
    // 45 rows: the first minute whole and half of the second, not both minutes whole.
    expect(await deleteMetricsChunk(db, old + 3 * MINUTE_MS, 45)).toBe(45);
    expect(await countMetrics(db)).toBe(before - 45);
    expect(await deleteMetricsChunk(db, old + 3 * MINUTE_MS, 100)).toBe(45);
  });

  it('retention statements are sized by the time the last one took', () => {
    expect(nextRetentionRows(1000, 40)).toBe(250);
    expect(nextRetentionRows(1000, 1)).toBe(1500);
    expect(nextRetentionRows(RETENTION_ROWS.max, 0)).toBe(RETENTION_ROWS.max);
    expect(nextRetentionRows(RETENTION_ROWS.min, 5_000)).toBe(RETENTION_ROWS.min);
  });
});

describe('dispatch at fleet scale', () => {
  it('one claim per task: tasks for any node spread over the least loaded nodes', async () => {
    simFleet.leaveAll();
    await waitFor('closed sessions gone', async () => [...rt.sessions.values()].length === 0);
    const fleet = await join(10);
    const spiderId = await makeSpider(m, 'fleet', 'echo fleet');
    const before = { ...rt.dispatcher.counts };
    for (let i = 0; i < 20; i++)
      expect((await m.api('PUT', '/tasks', { body: { spider_id: spiderId, run_type: 'random' } })).status).toBe(200);
    await waitFor('20 tasks assigned', async () => fleet.reduce((n, s) => n + s.assigned.length, 0) === 20);
    expect(rt.dispatcher.counts.claims - before.claims).toBe(20);
    expect(rt.dispatcher.counts.claimsLost - before.claimsLost).toBe(0);
    expect(fleet.map((s) => s.assigned.length)).toEqual(fleet.map(() => 2));
  });

  it('a task for one node costs one claim; a full node takes more only when a slot frees', async () => {
    const fleet = simFleet.nodes.slice(-10);
    const target = fleet[0];
    const spiderId = await makeSpider(m, 'fleet-one', 'echo one');
    const before = { ...rt.dispatcher.counts };
    // selected-nodes makes one task per distinct node: four runs, four tasks for the target, which holds two.
    for (let i = 0; i < 4; i++) {
      expect(
        (
          await m.api('PUT', '/tasks', {
            body: { spider_id: spiderId, run_type: 'selected-nodes', node_ids: [target.nodeId] },
          })
        ).status,
      ).toBe(200);
    }
    await waitFor('the target full', async () => target.assigned.length === 4);
    // Two tasks wait: the node has 4 runners and holds 4.
    const pending = await m.api('GET', '/tasks', {
      query: { node_id: target.nodeId, status: 'pending', page_size: 50 },
    });
    expect(pending.body.total).toBe(6);
    expect(rt.dispatcher.counts.claims - before.claims).toBe(2);
    const first = target.assigned[0].taskId;
    target.started(first);
    target.finished(first);
    await waitFor('a freed slot taken', async () => target.assigned.length === 5);
    expect(rt.dispatcher.counts.claims - before.claims).toBe(3);
    expect(rt.dispatcher.counts.claimsLost - before.claimsLost).toBe(0);
    for (const s of fleet.slice(1)) expect(s.assigned).toHaveLength(2);
  });
});

import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { handShipping } from './ship.helpers.ts';

const KEY = 'ingest-order-key';
let m: TestMaster;
let node: ChildNode;
let sim: SimNode;

beforeAll(async () => {
  // A batch that came early waits for its predecessor as long as the test needs to line the batches up.
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, ingestWaitMs: 60_000 });
  node = spawnNode(m.url, KEY, 'pipeliner');
  await waitNodes(m, 1, 30_000);
});
afterAll(async () => {
  sim?.close();
  node?.proc.kill('SIGKILL');
  await m?.close();
  if (node) rmSync(node.dataDir, { recursive: true, force: true });
});

/** One value of the master's Prometheus metrics. */
async function metric(name: string): Promise<number> {
  const res = await fetch(`${m.url}/metrics`, { headers: { authorization: `Bearer ${m.adminToken}` } });
  const text = await res.text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return line ? Number(line.split(' ')[1]) : NaN;
}

const { simTask, ship } = handShipping(
  () => m,
  () => sim,
);

describe('ingest with several batches of a task in flight', () => {
  it('a real node keeps several batches of one task in flight; every line and item is stored once, in order', async () => {
    const lines = 100_000; // one page of the log
    const items = 40_000;
    const cmd = `seq 1 ${lines}; seq 1 ${items} | awk '{print "{\\"n\\":" $1 "}"}' >> "$CRAWLDECK_ITEMS"`;
    const spider = await makeSpider(m, 'pipelined', cmd);
    const [taskId] = await runSpider(m, spider);
    const done = await waitTask(m, taskId, ['finished', 'error'], 120_000);
    expect(done.status).toBe('finished');
    const log = await allLog(m, taskId);
    expect(log.length).toBe(lines);
    expect(log.every((l, i) => l.line_no === i + 1 && l.msg === String(i + 1))).toBe(true);
    expect(done.result_count).toBe(items);
    // Every item once and in order, read back whole through the CSV download (list totals stop counting at 10,000).
    const csv = await fetch(`${m.url}/api/tasks/${taskId}/results/download`, {
      headers: { authorization: `Bearer ${m.adminToken}` },
    });
    const rows = (await csv.text()).trim().split(/\r?\n/);
    expect(rows[0]).toBe('n');
    expect(rows.slice(1)).toEqual(Array.from({ length: items }, (_, i) => String(i + 1)));
    // On PostgreSQL batches of one task overlap at the master. SQLite stores a batch within one turn of the
    // master's event loop, so there the next batch is only read once the previous one is answered.
    const inFlight = await metric('crawldeck_ingest_batches_in_flight_max');
    if (ENGINE === 'postgres') expect(inFlight).toBeGreaterThanOrEqual(2);
    else expect(inFlight).toBeGreaterThanOrEqual(1);
  });

  it('stores batches that arrive out of order, and again, exactly once', async () => {
    // Connected now: a node that sends no heartbeats is offline after a while.
    sim = new SimNode({ master: m.url, key: KEY, name: 'sim-shipper' });
    await sim.connect();
    const spider = await makeSpider(m, 'reordered', 'echo sim');
    const taskId = await simTask(spider);
    const batch = (k: number) => Array.from({ length: 500 }, (_, i) => `line ${k * 500 + i + 1}`);
    const itemBatch = (k: number) => Array.from({ length: 300 }, (_, i) => JSON.stringify({ n: k * 300 + i + 1 }));
    const waitedBefore = await metric('crawldeck_ingest_batches_waited_total');
    // Batches 5…1 first: each arrives before its predecessor and waits at the master.
    const early = [5, 4, 3, 2, 1].flatMap((k) => [
      ship('logs', taskId, k * 500, batch(k)),
      ship('items', taskId, k * 300, itemBatch(k)),
    ]);
    await waitFor(
      'the early batches to wait at the master',
      async () => (await metric('crawldeck_ingest_batches_waited_total')) - waitedBefore >= 10,
    );
    // Then the first batch, a repeat of the third, and the first again.
    const rest = [0, 2, 0].flatMap((k) => [
      ship('logs', taskId, k * 500, batch(k)),
      ship('items', taskId, k * 300, itemBatch(k)),
    ]);
    const acks = await Promise.all([...early, ...rest]);
    expect(Math.max(...acks.filter((_, i) => i % 2 === 0))).toBe(3000);
    expect(Math.max(...acks.filter((_, i) => i % 2 === 1))).toBe(1800);
    expect(await ship('logs', taskId, 0, batch(0))).toBe(3000);
    const log = await allLog(m, taskId);
    expect(log.map((l) => l.msg)).toEqual(Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`));
    const task = (await m.api('GET', `/tasks/${taskId}`)).body.data;
    expect(task.result_count).toBe(1800);
    const results = await m.api('GET', `/tasks/${taskId}/results`, { query: { page_size: 2000 } });
    const ns = (results.body.data as { n: number }[]).map((r) => r.n).sort((a, b) => a - b);
    expect(ns).toEqual(Array.from({ length: 1800 }, (_, i) => i + 1));
  });
});

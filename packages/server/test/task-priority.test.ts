import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { gatePath, makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';

let m: TestMaster;
let nodeId = '';
let spiderId = '';
const gates: string[] = [];

/** Waits until the gate file named by its first argument exists, so a test decides when the task ends. */
const GATE_SH = 'while [ ! -e "$1" ]; do sleep 0.05; done\necho "through $1"\n';

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  nodeId = ((await waitNodes(m, 1)) as { _id: string }[])[0]._id;
  // One slot: tasks start one at a time, in the queue's order.
  expect((await m.api('POST', `/nodes/${nodeId}`, { body: { max_runners: 1 } })).status).toBe(200);
  spiderId = await makeSpider(m, 'gated', 'sh gate.sh', { 'gate.sh': GATE_SH });
});
afterAll(async () => {
  for (const g of gates) rmSync(g, { force: true });
  await m?.close();
});

function gate(name: string): string {
  const g = gatePath(`priority-${name}`);
  gates.push(g);
  return g;
}

const task = async (id: string) => (await m.api('GET', `/tasks/${id}`)).body.data;
const taskCount = async () => (await m.api('GET', '/tasks', { query: { page_size: 1 } })).body.total as number;

describe('task priority', () => {
  it('refuses a priority outside 1…5 or not an integer, on every way in, and creates nothing', async () => {
    const before = await taskCount();
    for (const priority of [0, 6, 2.5, 'high', -1]) {
      const put = await m.api('PUT', '/tasks', { body: { spider_id: spiderId, param: 'x', priority } });
      expect(put.status, JSON.stringify(put.body)).toBe(400);
      expect(put.body.error).toMatch(/priority/);
      const many = await m.api('POST', '/spiders-run', {
        body: { task_params: [{ spider_id: spiderId, param: 'x', priority }] },
      });
      expect(many.status).toBe(400);
      expect(many.body.error).toMatch(/priority/);
      const sched = await m.api('PUT', '/schedules', {
        body: { name: 'p', cron: '0 0 0 1 1 *', spider_id: spiderId, param: 'x', priority },
      });
      expect(sched.status).toBe(400);
      expect(sched.body.error).toMatch(/priority/);
    }
    expect(await taskCount()).toBe(before);
    expect((await m.api('GET', '/schedules')).body.total).toBe(0);
  });

  it('a higher-priority task created later starts first when the slot frees; equal priorities go oldest first', async () => {
    const [g0, gLow, gMid, gHigh, gMid2] = ['hold', 'low', 'mid', 'high', 'mid2'].map(gate);
    const [holder] = await runSpider(m, spiderId, { param: g0 });
    await waitTask(m, holder, ['running']);
    const [low] = await runSpider(m, spiderId, { param: gLow, priority: 5 });
    const [mid] = await runSpider(m, spiderId, { param: gMid });
    const many = await m.api('POST', '/spiders-run', {
      body: { task_params: [{ spider_id: spiderId, param: gHigh, priority: 1 }] },
    });
    expect(many.status).toBe(200);
    const [high] = many.body.data as string[];
    const [mid2] = await runSpider(m, spiderId, { param: gMid2, priority: 3 });
    expect((await task(low)).priority).toBe(5);
    expect((await task(mid)).priority).toBe(3);
    expect((await task(high)).priority).toBe(1);

    // The list filters by priority.
    const listed = await m.api('GET', '/tasks', { query: { spider_id: spiderId, priority: 1 } });
    expect((listed.body.data as { _id: string }[]).map((t) => t._id)).toEqual([high]);
    expect((await m.api('GET', '/tasks', { query: { priority: 9 } })).status).toBe(400);

    // Each time the one slot frees, the next task in priority order starts, and only it.
    const order = [holder, high, mid, mid2, low];
    const gateOf: Record<string, string> = { [holder]: g0, [high]: gHigh, [mid]: gMid, [mid2]: gMid2, [low]: gLow };
    for (let i = 0; i < order.length - 1; i++) {
      writeFileSync(gateOf[order[i]], '');
      await waitTask(m, order[i], ['finished']);
      await waitTask(m, order[i + 1], ['running']);
      for (const rest of order.slice(i + 2)) expect((await task(rest)).status).toBe('pending');
    }
    writeFileSync(gLow, '');
    await waitTask(m, low, ['finished']);
  });

  it('changes the priority of a waiting task only; the new place counts at the next free slot', async () => {
    const [g0, gA, gB] = ['edit-hold', 'edit-a', 'edit-b'].map(gate);
    const [holder] = await runSpider(m, spiderId, { param: g0 });
    await waitTask(m, holder, ['running']);
    const [a] = await runSpider(m, spiderId, { param: gA, priority: 2 });
    const [b] = await runSpider(m, spiderId, { param: gB, priority: 4 });

    for (const priority of [0, 6, 1.5, 'first']) {
      const bad = await m.api('POST', `/tasks/${b}/priority`, { body: { priority } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/priority/);
    }
    expect((await task(b)).priority).toBe(4);
    const moved = await m.api('POST', `/tasks/${b}/priority`, { body: { priority: 1 } });
    expect(moved.status).toBe(200);
    expect(moved.body.data.priority).toBe(1);

    // A running task keeps its priority.
    const late = await m.api('POST', `/tasks/${holder}/priority`, { body: { priority: 5 } });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatch(/waits/);
    expect((await task(holder)).priority).toBe(3);

    writeFileSync(g0, '');
    await waitTask(m, b, ['running']);
    expect((await task(a)).status).toBe('pending');
    writeFileSync(gB, '');
    await waitTask(m, a, ['running']);
    writeFileSync(gA, '');
    await waitTask(m, a, ['finished']);
    // An ended task keeps its priority too.
    expect((await m.api('POST', `/tasks/${a}/priority`, { body: { priority: 1 } })).status).toBe(409);
  });

  it("a schedule keeps its priority and its fires' tasks carry it", async () => {
    const g = gate('schedule');
    const made = await m.api('PUT', '/schedules', {
      body: { name: 'urgent', cron: '0 0 0 1 1 *', spider_id: spiderId, param: g, priority: 2, enabled: false },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.data._id as string;
    expect((await m.api('GET', `/schedules/${id}`)).body.data.priority).toBe(2);
    expect((await m.api('POST', `/schedules/${id}`, { body: { priority: 9 } })).status).toBe(400);
    expect((await m.api('POST', `/schedules/${id}`, { body: { priority: 1 } })).status).toBe(200);
    expect((await m.api('GET', `/schedules/${id}`)).body.data.priority).toBe(1);
    const fired = await m.api('POST', `/schedules/${id}/run`);
    expect(fired.status).toBe(200);
    const [t] = fired.body.data.task_ids as string[];
    expect((await task(t)).priority).toBe(1);
    writeFileSync(g, '');
    await waitTask(m, t, ['finished']);
  });
});

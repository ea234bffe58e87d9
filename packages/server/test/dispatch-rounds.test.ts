import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, waitFor } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import type { TaskRuntime } from '../src/features/execution/runtime.ts';

// Each dispatch round looks at every session this master holds: at thousands of nodes a round that cannot place
// anything costs as much as one that does, so dispatch stops as soon as it knows nothing is left to place.
let m: TestMaster;
let rt: TaskRuntime;
const KEY = 'rounds-key';
const sims: SimNode[] = [];

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, nodeHeartbeatMs: 60_000, nodeOfflineMs: 600_000 });
  rt = m.master.ctx.execution;
  for (let i = 0; i < 3; i++) sims.push(new SimNode({ master: m.url, key: KEY, name: `rounds-${i}`, maxRunners: 4 }));
  await Promise.all(sims.map((s) => s.connect()));
});
afterAll(async () => {
  for (const s of sims) s.close();
  await m?.close();
});

describe('dispatch rounds', () => {
  it('a task created while slots are free costs one round, not a second one that finds nothing', async () => {
    const spiderId = await makeSpider(m, 'rounds', 'echo rounds');
    const before = { ...rt.dispatcher.counts };
    const tasks = 6;
    for (let i = 0; i < tasks; i++) {
      expect((await m.api('PUT', '/tasks', { body: { spider_id: spiderId, run_type: 'random' } })).status).toBe(200);
      await waitFor('the task assigned', async () => sims.reduce((n, s) => n + s.assigned.length, 0) === i + 1);
    }
    const counts = rt.dispatcher.counts;
    expect(counts.claims - before.claims).toBe(tasks);
    expect(counts.rounds - before.rounds).toBe(tasks);
  });

  it('a burst larger than the free slots is placed as slots free, every task once', async () => {
    const spiderId = await makeSpider(m, 'rounds-burst', 'echo burst');
    const held = sims.reduce((n, s) => n + s.assigned.length, 0);
    const before = { ...rt.dispatcher.counts };
    const burst = 20;
    for (let i = 0; i < burst; i++)
      expect((await m.api('PUT', '/tasks', { body: { spider_id: spiderId, run_type: 'random' } })).status).toBe(200);
    // The nodes keep their tasks (12 runners, 6 held): finishing them frees slots for the rest.
    let done = 0;
    while (done < held + burst) {
      await waitFor('tasks assigned', async () => sims.some((s) => s.assigned.length > 0));
      for (const s of sims)
        for (const t of s.assigned.splice(0)) {
          s.started(t.taskId);
          s.finished(t.taskId);
          done++;
        }
    }
    expect(rt.dispatcher.counts.claims - before.claims).toBe(burst);
    expect(rt.dispatcher.counts.claimsLost - before.claimsLost).toBe(0);
  });
});

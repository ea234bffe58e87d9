import { describe, expect, it } from 'vitest';
import { makeSpider, waitFor } from './tasks.helpers.ts';
import { useSimFleet } from './support/sim-fleet.ts';

// Dispatch chooses from the free sessions kept in order by the session table: placing a task looks at the session
// it places on, whatever the size of the fleet, and keeping the order costs steps that grow with log n, not n.
const fleet = useSimFleet('scale-key');
/** While true, nodes start and finish what they are given at once (the fleet bench's load). */
let finishAtOnce = false;
const join = (count: number) =>
  fleet.join(count, {
    onAssign: (node, task) => {
      if (!finishAtOnce) return;
      node.started(task.taskId);
      node.finished(task.taskId);
    },
  });

/** Creates `count` tasks for any node, a few at a time, and waits until dispatch claimed them all. */
async function place(spiderId: string, count: number) {
  const { master: m, runtime: rt } = fleet;
  const d0 = { ...rt.dispatcher.counts };
  const w0 = { ...rt.sessions.free.work };
  for (let i = 0; i < count; i += 5) {
    const batch = Array.from({ length: Math.min(5, count - i) }, () =>
      m.api('PUT', '/tasks', { body: { spider_id: spiderId, run_type: 'random' } }),
    );
    for (const r of await Promise.all(batch)) expect(r.status).toBe(200);
  }
  await waitFor('every task claimed', async () => rt.dispatcher.counts.claims - d0.claims === count);
  const w = rt.sessions.free.work;
  expect(rt.dispatcher.counts.claimsLost - d0.claimsLost).toBe(0);
  return { visited: (w.visited - w0.visited) / count, steps: (w.steps - w0.steps) / count };
}

describe('dispatch at fleet scale', () => {
  it('spreads tasks least loaded first, and a placement looks at one session at 50 and at 1 000 nodes', async () => {
    const rt = fleet.runtime;
    const spiderId = await makeSpider(fleet.master, 'scale', 'echo scale');
    const first = await join(50);
    // Tasks kept: one task per node before any node gets a second.
    await place(spiderId, 50);
    await waitFor('every task at its node', async () => first.every((s) => s.assigned.length === 1));
    for (const s of first)
      for (const t of s.assigned.splice(0)) {
        s.started(t.taskId);
        s.finished(t.taskId);
      }
    await waitFor('the nodes free again', async () => rt.sessions.free.slots === 50 * 4);

    finishAtOnce = true;
    const small = await place(spiderId, 100);
    await join(950);
    await waitFor('the fleet free', async () => rt.sessions.free.slots === 1_000 * 4);
    const large = await place(spiderId, 100);

    // A walk over the sessions would look at every one of them per placement (50, then 1 000).
    expect(small.visited).toBeLessThanOrEqual(1.1);
    expect(large.visited).toBeLessThanOrEqual(1.1);
    // Heap steps per placement (its claim and its finish): a few per level, ≈10 levels at 1 000 nodes.
    expect(small.steps).toBeLessThan(4 * Math.log2(50));
    expect(large.steps).toBeLessThan(4 * Math.log2(1_000));
  });
});

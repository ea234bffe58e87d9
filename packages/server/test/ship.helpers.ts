import { expect } from 'vitest';
import { NODE_ID_HEADER, NODE_KEY_HEADER } from '@crawldeck/shared';
import type { TestMaster } from './harness.ts';
import type { SimNode } from './support/sim-node.ts';
import { runSpider, waitFor } from './tasks.helpers.ts';

/**
 * Tasks a simulated node takes and whose batches the test ships by hand, as the node's shipper would. The master
 * and the node are read at each call (tests create them in their setup).
 */
export function handShipping(master: () => TestMaster, node: () => SimNode) {
  /** A task of the spider assigned to the simulated node and started there. */
  async function simTask(spiderId: string): Promise<string> {
    const sim = node();
    const before = sim.assigned.length;
    await runSpider(master(), spiderId, { run_type: 'selected-nodes', node_ids: [sim.nodeId] });
    await waitFor('the assignment', async () => sim.assigned.length > before);
    const taskId = sim.assigned[before].taskId;
    sim.started(taskId);
    return taskId;
  }

  /** Posts one batch of log lines or items; returns the acknowledged offset. */
  async function ship(kind: 'logs' | 'items', taskId: string, from: number, lines: string[]): Promise<number> {
    const res = await fetch(`${master().url}/api/node-api/tasks/${taskId}/${kind}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [NODE_KEY_HEADER]: node().key, [NODE_ID_HEADER]: node().nodeId },
      body: JSON.stringify({ from, lines }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { acked: number } }).data.acked;
  }

  return { simTask, ship };
}

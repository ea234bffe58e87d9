/** Tasks on a simulated node ended as a test tells, and the alert history of a rule, for the notification tests. */
import { expect } from 'vitest';
import type { TestMaster } from '../harness.ts';
import { runSpider, waitFor, waitTask } from '../tasks.helpers.ts';
import type { SimNode } from './sim-node.ts';

export interface AlertRow {
  subject: string;
  text: string;
  status: string;
  attempts: number;
  answer: string;
  link: string;
}

export function notifyTaskHelpers(master: () => TestMaster, node: () => SimNode) {
  /** Runs a task of the spider on the simulated node and ends it as told. */
  async function endTask(
    spiderId: string,
    end: { status: 'finished' | 'error'; error?: string; errorLines?: number; items?: number },
  ): Promise<string> {
    const [m, sim] = [master(), node()];
    const [taskId] = await runSpider(m, spiderId);
    await waitTask(m, taskId, ['running']);
    const lines = Array.from({ length: end.errorLines ?? 0 }, (_, i) => `ERROR: failure ${i}`);
    if (lines.length) await sim.shipLogs(taskId, 0, lines);
    if (end.items) await shipItems(taskId, end.items);
    sim.send({
      type: 'task.finished',
      taskId,
      status: end.status,
      exitCode: end.status === 'error' ? 1 : 0,
      error: end.error ?? '',
      logLines: lines.length,
      items: end.items ?? 0,
      finishTs: Date.now(),
    });
    await waitTask(m, taskId, [end.status]);
    return taskId;
  }

  async function shipItems(taskId: string, n: number): Promise<void> {
    const r = await fetch(`${master().url}/api/node-api/tasks/${taskId}/items`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-crawldeck-node-key': node().key,
        'x-crawldeck-node-id': node().nodeId,
      },
      body: JSON.stringify({ from: 0, lines: Array.from({ length: n }, (_, i) => JSON.stringify({ i })) }),
    });
    expect(r.status).toBe(200);
  }

  const alertsOf = async (ruleId: string) =>
    (await master().api('GET', '/notifications/alerts', { query: { rule_id: ruleId, page_size: 100 } })).body
      .data as AlertRow[];

  /** Waits until `n` alerts of the rule are delivered; answers all its alerts. */
  const delivered = (ruleId: string, n: number) =>
    waitFor(`${n} delivered alerts of ${ruleId}`, async () => {
      const list = await alertsOf(ruleId);
      return list.filter((a) => a.status === 'delivered').length >= n && list;
    });

  return { endTask, alertsOf, delivered };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitFor } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';

// Tasks that no free node may take must not hold back the tasks behind them: a node without a sandbox takes no
// normal user's task, so with normal users' tasks ahead of an admin's, its free slot goes to the admin's.
const KEY = 'hol-key';
let m: TestMaster;
let node: SimNode;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, nodeHeartbeatMs: 60_000, nodeOfflineMs: 600_000 });
  node = new SimNode({ master: m.url, key: KEY, name: 'unsandboxed', maxRunners: 1 });
  await node.connect();
});
afterAll(async () => {
  node?.close();
  await m?.close();
});

describe('dispatch past tasks it cannot place', () => {
  it("an admin's task behind normal users' unplaceable tasks gets the free slot", async () => {
    const user = await m.createUser('queued-user');
    const userSpider = await makeSpider(m, 'users-spider', 'echo user', {}, {}, user);
    const adminSpider = await makeSpider(m, 'admins-spider', 'echo admin');
    const ahead: string[] = [];
    for (let i = 0; i < 3; i++) ahead.push(...(await runSpider(m, userSpider, {}, user)));
    const [adminTask] = await runSpider(m, adminSpider);
    await waitFor('the admin’s task sent to the node', async () => node.assigned.some((t) => t.taskId === adminTask));
    expect(node.assigned.map((t) => t.taskId)).toEqual([adminTask]);
    for (const id of ahead) {
      const t = (await m.api('GET', `/tasks/${id}`)).body.data;
      expect(t.status).toBe('pending');
      expect(t.waiting_reason).toBeTruthy();
    }
  });
});

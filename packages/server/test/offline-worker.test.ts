import { newId } from '@crawldeck/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';
import { saveNodeStatus, upsertRegisteredNode } from '../src/features/execution/node-state.store.ts';

// While a worker is online, normal users' tasks stay off the master's own node. A worker that is only registered
// (offline, or gone without a word) runs nothing, so it must not park them; removing one wakes dispatch.
process.env.CRAWLDECK_ADMIN_PASSWORD = ADMIN_PASSWORD;

let m: TestMaster;
let normal: string;
let masterNodeId: string;

async function registerWorker(name: string, status: 'online' | 'offline'): Promise<string> {
  const nodeId = newId();
  const db = m.master.store.db;
  const info = { os: 'Linux', arch: 'x64', num_cpu: 2, hostname: name, executables: [], python: 'python3' };
  await upsertRegisteredNode(
    db,
    { nodeId, name, nodeType: 'worker', maxRunners: 4, systemInfo: info, ip: '10.0.0.9' },
    Date.now(),
  );
  await saveNodeStatus(db, nodeId, status, 0);
  return nodeId;
}

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  masterNodeId = ((await waitNodes(m, 1, 30_000)) as { _id: string }[])[0]._id;
  normal = await m.createUser('parked-normal');
}, 60_000);

afterAll(async () => {
  await m?.close();
});

describe('registered workers that run nothing', () => {
  it('an offline worker does not keep normal users’ tasks off the master node', async () => {
    await registerWorker('gone-worker', 'offline');
    const id = await makeSpider(m, 'parked-a', 'echo here', {}, {}, normal);
    const [taskId] = await runSpider(m, id, {}, normal);
    expect((await waitTask(m, taskId, ['finished'], 30_000)).node_id).toBe(masterNodeId);
  }, 60_000);

  it('removing a worker that parked them wakes dispatch', async () => {
    // Recorded online, but no session: as after a crash of its host before the offline window ran out.
    const ghost = await registerWorker('ghost-worker', 'online');
    const id = await makeSpider(m, 'parked-b', 'echo here', {}, {}, normal);
    const [taskId] = await runSpider(m, id, {}, normal);
    expect((await m.api('GET', `/tasks/${taskId}`)).body.data.status).toBe('pending');
    expect((await m.api('DELETE', `/nodes/${ghost}`)).status).toBe(200);
    expect((await waitTask(m, taskId, ['finished'], 30_000)).node_id).toBe(masterNodeId);
  }, 60_000);
});

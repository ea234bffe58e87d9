import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';

// A node that cannot sandbox its tasks (here: turned off) runs them all under one identity where they see each
// other. Normal users' tasks stay off it until an administrator allows it; admins' tasks may go there.
const NODE_KEY = `bare-node-key-${process.pid}`;
process.env.CRAWLDECK_ADMIN_PASSWORD = ADMIN_PASSWORD;

let m: TestMaster;
let bare: ChildNode;
let normal: string;
let masterNodeId: string;
let bareNodeId: string;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true, nodeKey: NODE_KEY });
  const before = process.env.CRAWLDECK_SANDBOX;
  process.env.CRAWLDECK_SANDBOX = 'off';
  try {
    bare = spawnNode(m.url, NODE_KEY, 'bare-worker');
  } finally {
    if (before === undefined) delete process.env.CRAWLDECK_SANDBOX;
    else process.env.CRAWLDECK_SANDBOX = before;
  }
  const nodes = (await waitNodes(m, 2, 30_000)) as { _id: string; type: string }[];
  masterNodeId = nodes.find((n) => n.type === 'master')!._id;
  bareNodeId = nodes.find((n) => n.type === 'worker')!._id;
  normal = await m.createUser('bare-normal');
  expect((await m.api('POST', '/setting', { body: { user_tasks_on_master: 'Y' } })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  bare?.proc.kill('SIGKILL');
  await m?.close();
  if (bare) rmSync(bare.dataDir, { recursive: true, force: true });
});

describe('nodes without a sandbox', () => {
  it('say so in the nodes list', async () => {
    const list = (await m.api('GET', '/nodes')).body.data as {
      _id: string;
      systemInfo?: { sandbox?: { isolated: boolean; reason?: string } };
    }[];
    const b = list.find((n) => n._id === bareNodeId)!.systemInfo!.sandbox!;
    expect(b.isolated).toBe(false);
    expect(b.reason).toBeTruthy();
    expect(list.find((n) => n._id === masterNodeId)!.systemInfo!.sandbox!.isolated).toBe(true);
  });

  it('keep normal users’ tasks away unless an admin allows it', async () => {
    expect((await m.api('GET', '/system/setting')).body.data.user_tasks_unsandboxed).toBe('N');
    const id = await makeSpider(m, 'bare-where', 'echo here', {}, {}, normal);
    const refused = await m.api('PUT', '/tasks', {
      token: normal,
      body: { spider_id: id, run_type: 'selected-nodes', node_ids: [bareNodeId] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/sandbox/);
    const all = await runSpider(m, id, { run_type: 'all-nodes' }, normal);
    expect(all).toHaveLength(1);
    const random: string[] = [];
    for (let i = 0; i < 4; i++) random.push(...(await runSpider(m, id, {}, normal)));
    for (const t of [...all, ...random])
      expect((await waitTask(m, t, ['finished'], 30_000)).node_id).toBe(masterNodeId);
    // An admin's task may run there.
    const adminSpider = await makeSpider(m, 'bare-admin', 'echo here');
    const [own] = await runSpider(m, adminSpider, { run_type: 'selected-nodes', node_ids: [bareNodeId] });
    expect((await waitTask(m, own, ['finished'], 30_000)).node_id).toBe(bareNodeId);
    // A normal user may not open it; the admin may.
    const byUser = await m.api('POST', '/setting', { token: normal, body: { user_tasks_unsandboxed: 'Y' } });
    expect(byUser.status).toBe(403);
    const on = await m.api('POST', '/setting', { body: { user_tasks_unsandboxed: 'Y' } });
    expect(on.body.data.user_tasks_unsandboxed).toBe('Y');
    const [there] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [bareNodeId] }, normal);
    expect((await waitTask(m, there, ['finished'], 30_000)).node_id).toBe(bareNodeId);
    expect((await runSpider(m, id, { run_type: 'all-nodes' }, normal)).length).toBe(2);
  }, 120_000);
});

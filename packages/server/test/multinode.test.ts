import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { gatePath, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { killGroup, spawnNode, type ChildNode } from './nodes.helpers.ts';

// Short timeouts so a dead node is noticed quickly (defaults: 10 s offline, 2 s heartbeat).
process.env.CRAWLDECK_NODE_OFFLINE_SECONDS = '2';
process.env.CRAWLDECK_NODE_HEARTBEAT_SECONDS = '0.5';

let m: TestMaster;
const nodes: ChildNode[] = [];
const orphans: number[] = [];

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: 'test-node-key' });
  nodes.push(spawnNode(m.url, 'test-node-key', 'w1'), spawnNode(m.url, 'test-node-key', 'w2'));
  await waitNodes(m, 2, 30_000);
});
afterAll(async () => {
  for (const n of nodes) n.proc.kill('SIGKILL');
  for (const pid of orphans) killGroup(pid);
  await m?.close();
});

describe('multi-node on loopback', () => {
  it('joins two worker nodes; a wrong key is refused', async () => {
    const list = (await m.api('GET', '/nodes')).body.data as { name: string; type: string; status: string }[];
    expect(list.map((n) => n.name).sort()).toEqual(['w1', 'w2']);
    expect(list.every((n) => n.type === 'worker' && n.status === 'online')).toBe(true);
    const bad = spawnNode(m.url, 'wrong-key', 'bad');
    await waitFor('refusal', async () => /refused the node key/.test(bad.output()), 15_000);
    bad.proc.kill('SIGKILL');
    expect(((await m.api('GET', '/nodes')).body.data as unknown[]).length).toBe(2);
  });

  it('all-nodes makes one task per node and both deliver', async () => {
    const id = await makeSpider(m, 'everywhere', 'python3 main.py', {
      'main.py':
        'import os\nfrom crawldeck import save_item\nsave_item({"node": os.environ["CRAWLDECK_NODE_ID"]})\nprint("on", os.environ["CRAWLDECK_NODE_ID"])\n',
    });
    const ids = await runSpider(m, id, { run_type: 'all-nodes' });
    expect(ids).toHaveLength(2);
    const tasks = await Promise.all(ids.map((t) => waitTask(m, t, ['finished', 'error'])));
    expect(tasks.every((t) => t.status === 'finished')).toBe(true);
    expect(new Set(tasks.map((t) => t.node_id)).size).toBe(2);
    for (const t of tasks) {
      const r = await m.api('GET', `/tasks/${t._id}/results`);
      expect(r.body.data[0].node).toBe(t.node_id);
    }
    // Deploy again without changes: nothing moves.
    const again = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [tasks[0].node_id] });
    await waitTask(m, again[0], ['finished']);
    const deploys = await m.api('GET', '/deploys', { query: { spider_id: id } });
    expect(deploys.body.total).toBe(3);
    expect(deploys.body.data[0]).toMatchObject({ files_changed: 0, files_total: 1 });
  });

  it('random spreads over the least-loaded nodes', async () => {
    // Every task waits for a go file, so all four are running at once when the spread is read.
    const gate = gatePath('spread');
    mkdirSync(gate, { mode: 0o755 });
    try {
      const id = await makeSpider(m, 'spread', `sh -c 'while [ ! -e ${gate}/go ]; do sleep 0.05; done'`);
      // The spread is only even when both nodes start idle: the tasks of the tests before must be over for the master.
      await waitFor('both nodes idle', async () => {
        const list = (await m.api('GET', '/nodes')).body.data as { running: number }[];
        return list.length === 2 && list.every((n) => n.running === 0);
      });
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(...(await runSpider(m, id)));
      const running = await Promise.all(ids.map((t) => waitTask(m, t, ['running'])));
      const per = new Map<string, number>();
      for (const t of running) per.set(t.node_id, (per.get(t.node_id) ?? 0) + 1);
      expect([...per.values()]).toEqual([2, 2]);
      writeFileSync(path.join(gate, 'go'), '');
      await Promise.all(ids.map((t) => waitTask(m, t, ['finished'])));
    } finally {
      // Never leave the tasks waiting: a failed expectation still lets them end.
      writeFileSync(path.join(gate, 'go'), '');
      rmSync(gate, { recursive: true, force: true });
    }
  });

  it('a frozen node goes offline (task abnormal) and, back again, reconciles: the task runs on and finishes', async () => {
    const id = await makeSpider(m, 'survives', "sh -c 'for i in 1 2 3 4 5 6; do echo tick$i; sleep 0.5; done'");
    const frozen = nodes[0];
    const frozenId = ((await m.api('GET', '/nodes')).body.data as { _id: string; name: string }[]).find(
      (n) => n.name === 'w1',
    )!._id;
    const [t] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [frozenId] });
    await waitTask(m, t, ['running']);
    frozen.proc.kill('SIGSTOP');
    try {
      await waitTask(m, t, ['abnormal'], 10_000);
    } finally {
      frozen.proc.kill('SIGCONT');
    }
    const done = await waitTask(m, t, ['finished'], 20_000);
    expect(done.log_count).toBe(6);
    const log = await m.api('GET', `/tasks/${t}/log`);
    expect(log.body.data.map((l: { msg: string }) => l.msg)).toEqual([
      'tick1',
      'tick2',
      'tick3',
      'tick4',
      'tick5',
      'tick6',
    ]);
  });

  it('kill -9 of a node mid-task turns the task abnormal within the offline timeout', async () => {
    const id = await makeSpider(m, 'long', 'sleep 60');
    const victim = nodes[1];
    const nodeList = (await m.api('GET', '/nodes')).body.data as { _id: string; name: string }[];
    const victimId = nodeList.find((n) => n.name === 'w2')!._id;
    const [t] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [victimId] });
    const running = await waitTask(m, t, ['running']);
    orphans.push(running.pid);
    victim.proc.kill('SIGKILL');
    const after = await waitTask(m, t, ['abnormal'], 10_000);
    expect(after.error).toMatch(/offline/);
    const node = (await m.api('GET', `/nodes/${victimId}`)).body.data;
    expect(node.status).toBe('offline');
    // A node that comes back with the same data dir keeps its id and is online again.
    nodes[1] = spawnNode(m.url, 'test-node-key', 'w2', [], victim.dataDir);
    await waitFor(
      'w2 back',
      async () => (await m.api('GET', `/nodes/${victimId}`)).body.data.status === 'online',
      20_000,
    );
  });
});

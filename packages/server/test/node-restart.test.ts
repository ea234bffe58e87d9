import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, gatePath, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { groupAlive, killGroup, spawnNode, type ChildNode } from './nodes.helpers.ts';

// A dead node is noticed quickly (defaults: 10 s offline, 2 s heartbeat).
process.env.CRAWLDECK_NODE_OFFLINE_SECONDS = '2';
process.env.CRAWLDECK_NODE_HEARTBEAT_SECONDS = '0.5';

const COUNT = 2000;
let m: TestMaster;
let node: ChildNode;
let nodeId = '';
const pids: number[] = [];
const gates: string[] = [];

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: 'restart-key' });
  node = spawnNode(m.url, 'restart-key', 'phoenix');
  nodeId = (await waitNodes(m, 1, 30_000))[0]._id;
});
afterAll(async () => {
  node?.proc.kill('SIGKILL');
  for (const pid of pids) killGroup(pid);
  for (const g of gates) rmSync(g, { force: true });
  await m?.close();
  if (node) rmSync(node.dataDir, { recursive: true, force: true });
});

async function killNode(): Promise<void> {
  const exited = new Promise((r) => node.proc.once('exit', r));
  node.proc.kill('SIGKILL');
  await exited;
}

async function restartNode(): Promise<void> {
  node = spawnNode(m.url, 'restart-key', 'phoenix', [], node.dataDir);
  await waitFor(
    'node back online',
    async () => (await m.api('GET', `/nodes/${nodeId}`)).body.data.status === 'online',
    30_000,
  );
}

async function expectExact(taskId: string, lines: number, items: number) {
  // Abnormal is where the task stood while the node was away: it ends with the node's final report.
  const done = await waitTask(m, taskId, ['finished', 'error', 'cancelled'], 60_000);
  const log = await allLog(m, taskId);
  const results = await m.api('GET', `/tasks/${taskId}/results`, { query: { page_size: items + 10 } });
  const got = {
    status: done.status,
    log_count: done.log_count,
    lines: log.length,
    result_count: done.result_count,
    items: results.body.total,
  };
  console.log(`node kill -9: written ${lines} lines / ${items} items, stored`, got);
  expect(got).toEqual({ status: 'finished', log_count: lines, lines, result_count: items, items });
  expect(log.map((l) => l.msg)).toEqual(Array.from({ length: lines }, (_, i) => `line ${i}`));
  expect((results.body.data as { i: number }[]).map((r) => r.i).sort((a, b) => a - b)).toEqual(
    Array.from({ length: items }, (_, i) => i),
  );
  return done;
}

describe('a worker node killed with -9 mid-task and started again', () => {
  it('takes its still running spider back over: every line and item arrives once, no process is left', async () => {
    // Steady output; halfway the spider waits for the gate, so it is certainly alive when the node comes back.
    const gate = gatePath('node-restart');
    gates.push(gate);
    const id = await makeSpider(m, 'prints-and-writes', 'python3 main.py', {
      'main.py': `import os, time
from crawldeck import save_item
for i in range(${COUNT}):
    if i == ${COUNT / 2}:
        while not os.path.exists(${JSON.stringify(gate)}):
            time.sleep(0.05)
    print("line %d" % i)
    save_item({"i": i})
    time.sleep(0.002)
`,
    });
    const [taskId] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [nodeId] });
    const running = await waitFor(
      'output flowing',
      async () => {
        const t = (await m.api('GET', `/tasks/${taskId}`)).body.data;
        return t.status === 'running' && t.log_count > 100 && t.result_count > 100 ? t : undefined;
      },
      30_000,
    );
    pids.push(running.pid);
    await killNode();
    // The master gives up on the node: the task is abnormal while its spider goes on writing.
    expect((await waitTask(m, taskId, ['abnormal'], 15_000)).error).toMatch(/offline/);
    expect(groupAlive(running.pid)).toBe(true);
    const before = (await m.api('GET', `/tasks/${taskId}`)).body.data;
    console.log(
      `node kill -9 (prints and writes): stored before the restart ${before.log_count} lines / ${before.result_count} items`,
    );
    await restartNode();
    // The node reports the process it found alive: the task runs again.
    await waitTask(m, taskId, ['running'], 15_000);
    writeFileSync(gate, '');
    const done = await expectExact(taskId, COUNT, COUNT);
    expect(done.exit_code).toBe(0);
    expect(done.error).toBe('');
    expect(groupAlive(running.pid)).toBe(false);
  });

  it('ships what a spider that only writes items wrote while the node was down, with the exit code it recorded', async () => {
    const id = await makeSpider(m, 'only-items', 'python3 main.py', {
      'main.py': `import time
from crawldeck import save_item
for i in range(${COUNT}):
    save_item({"i": i})
    time.sleep(0.001)
`,
    });
    const [taskId] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [nodeId] });
    const running = await waitFor(
      'items flowing',
      async () => {
        const t = (await m.api('GET', `/tasks/${taskId}`)).body.data;
        return t.status === 'running' && t.result_count > 100 ? t : undefined;
      },
      30_000,
    );
    pids.push(running.pid);
    await killNode();
    await waitTask(m, taskId, ['abnormal'], 15_000);
    // The spider ends on its own while no node watches it; its exit code is in the spool.
    await waitFor('spider done', async () => !groupAlive(running.pid), 60_000);
    const stored = (await m.api('GET', `/tasks/${taskId}`)).body.data.result_count;
    expect(stored).toBeLessThan(COUNT);
    console.log(`node kill -9 (only items): stored before the restart ${stored} items`);
    await restartNode();
    const done = await expectExact(taskId, 0, COUNT);
    expect(done.exit_code).toBe(0);
  });

  it('keeps its own key across the restart: joined once, the same key in use afterwards, never logged', async () => {
    const file = path.join(node.dataDir, 'node-credential');
    const key = readFileSync(file, 'utf8').trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = (await m.api('GET', `/nodes/${nodeId}/key`)).body.data;
    expect(before).toMatchObject({ has_key: true, revoked: false });
    await killNode();
    const earlier = node.output();
    await restartNode();
    // Back online with the kept key: the shared key would have been refused, as this node has a key of its own.
    const after = (await m.api('GET', `/nodes/${nodeId}/key`)).body.data;
    expect(after.created_at).toBe(before.created_at);
    expect(readFileSync(file, 'utf8').trim()).toBe(key);
    expect(earlier + node.output()).not.toContain(key);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, pidAlive, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { killGroup, spawnNode, type ChildNode } from './nodes.helpers.ts';

// Several stateless masters share one PostgreSQL store. A node holds its WebSocket to one of
// them; tasks created, cancelled or deleted through another master must still reach it (LISTEN/NOTIFY task bus).
const pgOnly = ENGINE === 'postgres' ? describe : describe.skip;

let a: TestMaster;
let b: TestMaster;
let node: ChildNode | undefined;

beforeAll(async () => {
  if (ENGINE !== 'postgres') return;
  a = await startTestMaster({ embeddedNode: false, nodeKey: 'mm-key' });
  b = await a.startPeer({ embeddedNode: false, nodeKey: 'mm-key' });
  node = spawnNode(b.url, 'mm-key', 'on-b');
  await waitNodes(a, 1, 30_000);
});
afterAll(async () => {
  node?.proc.kill('SIGKILL');
  await a?.close();
});

pgOnly('several masters on one PostgreSQL store', () => {
  it('runs a task created through the master that does not hold the node', async () => {
    const id = await makeSpider(a, 'across', 'echo crossed-masters');
    const [t] = await runSpider(a, id);
    const task = await waitTask(a, t, ['finished', 'error'], 30_000);
    expect(task.status).toBe('finished');
    const log = await a.api('GET', `/tasks/${t}/log`);
    expect(log.body.data.map((l: { msg: string }) => l.msg)).toContain('crossed-masters');
  });

  it('cancels through the other master: the process group on the node is gone', async () => {
    const id = await makeSpider(a, 'long-across', 'sleep 60');
    const [t] = await runSpider(a, id);
    const running = await waitFor(
      'running with a pid',
      async () => {
        const r = (await a.api('GET', `/tasks/${t}`)).body.data;
        return r.status === 'running' && r.pid ? r : undefined;
      },
      30_000,
    );
    expect((await a.api('POST', `/tasks/${t}/cancel`)).status).toBe(200);
    await waitFor('process gone', async () => !pidAlive(running.pid), 20_000);
    expect((await waitTask(a, t, ['cancelled'], 20_000)).status).toBe('cancelled');
    killGroup(running.pid);
  });

  it('pushes package index settings saved on one master to a node connected to the other at once', async () => {
    const [n] = (await b.api('GET', '/nodes')).body.data as { _id: string }[];
    const sessions = b.master.ctx.execution.sessions;
    const sendTo = sessions.sendTo.bind(sessions);
    let woken = 0;
    sessions.sendTo = (nodeId, msg) => {
      if (nodeId === n._id && msg.type === 'env.wake') woken++;
      return sendTo(nodeId, msg);
    };
    try {
      const saved = await a.api('POST', '/env-settings', {
        body: { pip_index_url: 'http://127.0.0.1:9/simple/', pip_extra_index_url: '', npm_registry: '' },
      });
      expect(saved.status, saved.body.error).toBe(200);
      // The master holding the node tells it, not the node's next poll half a minute later.
      await waitFor('the node told by its master', async () => woken > 0, 20_000);
    } finally {
      sessions.sendTo = sendTo;
      await a.api('POST', '/env-settings', { body: { pip_index_url: '', pip_extra_index_url: '', npm_registry: '' } });
    }
  });
});

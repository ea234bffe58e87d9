import { PassThrough } from 'node:stream';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ID_HEADER, NODE_KEY_HEADER, PROTOCOL_VERSION } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitFor, waitTask } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';

const KEY = 'shared-join-key';
let m: TestMaster;
let a: SimNode;
let b: SimNode;
let spiderId = '';
const logged: string[] = [];

beforeAll(async () => {
  const logStream = new PassThrough();
  logStream.setEncoding('utf8');
  logStream.on('data', (chunk: string) => logged.push(chunk));
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, logLevel: 'debug', logRequests: true, logStream });
  a = new SimNode({ master: m.url, key: KEY, name: 'node-a', onAssign: (n, t) => n.started(t.taskId) });
  b = new SimNode({ master: m.url, key: KEY, name: 'node-b', onAssign: (n, t) => n.started(t.taskId) });
  await a.connect();
  await b.connect();
  spiderId = await makeSpider(m, 'keyed-spider', 'echo sim');
});
afterAll(async () => {
  a?.close();
  b?.close();
  await m?.close();
});

/** Posts a batch of a task's log lines or items with a key; the status and body of the answer. */
async function post(key: string, nodeId: string, taskId: string, kind: 'logs' | 'items', lines: string[]) {
  const r = await fetch(`${m.url}/api/node-api/tasks/${taskId}/${kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [NODE_KEY_HEADER]: key, [NODE_ID_HEADER]: nodeId },
    body: JSON.stringify({ from: 0, lines }),
  });
  return { status: r.status, text: await r.text() };
}

/** A task of the spider assigned to `node`, started there. */
async function taskOn(node: SimNode): Promise<string> {
  const before = node.assigned.length;
  await runSpider(m, spiderId, { run_type: 'selected-nodes', node_ids: [node.nodeId] });
  await waitFor('the assignment', async () => node.assigned.length > before);
  const taskId = node.assigned[before].taskId;
  await waitTask(m, taskId, ['running']);
  return taskId;
}

/** Opens a node socket with `key` and registers as `nodeId`: 'registered', or the code the master closed with. */
function openSocket(key: string, nodeId: string): Promise<string> {
  const ws = new WebSocket(m.url.replace(/^http/, 'ws') + '/api/nodes/connect', {
    headers: { [NODE_KEY_HEADER]: key },
  });
  return new Promise((resolve) => {
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'register',
          protocol: PROTOCOL_VERSION,
          nodeId,
          name: 'intruder',
          nodeType: 'worker',
          maxRunners: 1,
          systemInfo: { os: 'linux', arch: 'x64', num_cpu: 1, hostname: 'x', executables: [], python: '' },
          tasks: [],
        }),
      ),
    );
    ws.on('message', (data) => {
      if ((JSON.parse(data.toString()) as { type: string }).type === 'registered') {
        resolve('registered');
        ws.terminate();
      }
    });
    ws.on('close', (code) => resolve(String(code)));
    ws.on('error', () => undefined);
  });
}

const taskRow = async (id: string) => (await m.api('GET', `/tasks/${id}`)).body.data;
const keyState = async (nodeId: string) => (await m.api('GET', `/nodes/${nodeId}/key`)).body.data;

describe(`per-node credentials (${ENGINE})`, () => {
  it('gives each joining node a key of its own, which is never the shared key', async () => {
    expect(a.ownKey).toBeTruthy();
    expect(b.ownKey).toBeTruthy();
    expect(a.ownKey).not.toBe(b.ownKey);
    expect(a.ownKey).not.toBe(KEY);
    const state = await keyState(a.nodeId);
    expect(state).toMatchObject({ has_key: true, revoked: false, revoked_at: null });
    expect(typeof state.created_at).toBe('string');
  });

  it("refuses node A's key on node B's task: nothing is stored", async () => {
    const taskId = await taskOn(b);
    const logs = await post(a.key, a.nodeId, taskId, 'logs', ['forged line']);
    expect(logs.status).toBe(404);
    // Naming B's id in the header changes nothing: the key decides who the caller is.
    const items = await post(a.key, b.nodeId, taskId, 'items', [JSON.stringify({ forged: true })]);
    expect(items.status).toBe(404);
    // Nor may A report B's task over its own socket.
    a.send({
      type: 'task.finished',
      taskId,
      status: 'finished',
      exitCode: 0,
      error: '',
      logLines: 0,
      items: 0,
      finishTs: Date.now(),
    });
    // B's own key works on its task, and the reply comes after A's message was handled (one socket, in order).
    expect((await post(b.key, b.nodeId, taskId, 'logs', ['real line'])).status).toBe(200);
    // A heartbeat sent after it on A's socket is handled after it: once it shows, A's report was handled.
    a.heartbeat({ cpu: 77 });
    await waitFor('A heard', async () => (await m.api('GET', `/nodes/${a.nodeId}`)).body.data.metrics?.cpu === 77);
    const t = await taskRow(taskId);
    expect(t.status).toBe('running');
    expect(t.log_count).toBe(1);
    expect(t.result_count).toBe(0);
    const results = await m.api('GET', `/tasks/${taskId}/results`);
    expect(results.body.total).toBe(0);
  });

  it("cannot open B's socket with A's key, nor with the shared key once B has its own", async () => {
    expect(await openSocket(a.key, b.nodeId)).toBe('4403');
    expect(await openSocket(KEY, b.nodeId)).toBe('4403');
    expect((await m.api('GET', `/nodes/${b.nodeId}`)).body.data.status).toBe('online');
  });

  it('accepts the shared key only for joining: node HTTP routes answer 401 to it', async () => {
    const taskId = await taskOn(a);
    expect((await post(KEY, a.nodeId, taskId, 'logs', ['x'])).status).toBe(401);
    expect((await taskRow(taskId)).log_count).toBe(0);
  });

  it('rotating gives a new key, delivered to the connected node; the old one stops working', async () => {
    const taskId = await taskOn(a);
    const old = a.key;
    const r = await m.api('POST', `/nodes/${a.nodeId}/key`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ has_key: true, revoked: false, delivered: true });
    const fresh = r.body.data.key as string;
    expect(fresh).not.toBe(old);
    await waitFor('the node to receive its new key', async () => a.key === fresh);
    expect((await post(old, a.nodeId, taskId, 'logs', ['old key'])).status).toBe(401);
    expect((await post(fresh, a.nodeId, taskId, 'logs', ['new key'])).status).toBe(200);
    expect((await taskRow(taskId)).log_count).toBe(1);
  });

  it('never shows a node key in an API answer other than the one that issues it, nor in the logs', async () => {
    const answers = [
      await m.api('GET', '/nodes'),
      await m.api('GET', `/nodes/${a.nodeId}`),
      await m.api('GET', `/nodes/${a.nodeId}/key`),
      await m.api('GET', `/nodes/${b.nodeId}/key`),
      await m.api('GET', '/system/setting'),
    ];
    for (const r of answers) {
      expect(r.status).toBe(200);
      const text = JSON.stringify(r.body);
      expect(text).not.toContain(a.key);
      expect(text).not.toContain(b.key);
    }
    // A line logged now shows that everything logged before it is in.
    m.master.app.log.warn('marker after the answers');
    await waitFor('the marker', async () => logged.join('').includes('marker after the answers'));
    const all = logged.join('');
    expect(all).toContain('node key rotated');
    expect(all).not.toContain(a.key);
    expect(all).not.toContain(b.key);
  });

  it("revoking refuses the node's key (401, and at the socket) and leaves its tasks alone", async () => {
    const taskId = await taskOn(b);
    const key = b.key;
    const r = await m.api('DELETE', `/nodes/${b.nodeId}/key`);
    expect(r.body.data).toMatchObject({ has_key: false, revoked: true });
    expect(JSON.stringify(r.body)).not.toContain(key);
    expect((await post(key, b.nodeId, taskId, 'logs', ['after revoke'])).status).toBe(401);
    expect(await openSocket(key, b.nodeId)).toBe('4401');
    // The shared key does not bring a revoked node back.
    expect(await openSocket(KEY, b.nodeId)).toBe('4403');
    const t = await taskRow(taskId);
    expect(t.status).toBe('running');
    expect(t.log_count).toBe(0);
    // An administrator's new key lets it in again.
    const issued = (await m.api('POST', `/nodes/${b.nodeId}/key`)).body.data;
    expect(issued).toMatchObject({ has_key: true, revoked: false, delivered: false });
    expect((await post(issued.key, b.nodeId, taskId, 'logs', ['re-keyed'])).status).toBe(200);
  });

  it('with joining by the shared key turned off, a new node is refused and a keyed one still joins', async () => {
    const off = await m.api('POST', '/setting', { body: { node_join_shared_key: 'N' } });
    expect(off.body.data.node_join_shared_key).toBe('N');
    try {
      const stranger = new SimNode({ master: m.url, key: KEY, name: 'stranger' });
      await expect(stranger.connect()).rejects.toThrow(/4403/);
      const nodes = (await m.api('GET', '/nodes')).body.data as { _id: string }[];
      expect(nodes.map((n) => n._id)).not.toContain(stranger.nodeId);
      a.close();
      await a.connect();
      expect(a.ownKey).toBeTruthy();
    } finally {
      await m.api('POST', '/setting', { body: { node_join_shared_key: 'Y' } });
    }
  });

  it('refuses key routes to normal users and answers 404 for an unknown node', async () => {
    const normal = await m.createUser('keys-normal');
    expect((await m.api('POST', `/nodes/${a.nodeId}/key`, { token: normal })).status).toBe(403);
    expect((await m.api('DELETE', `/nodes/${a.nodeId}/key`, { token: normal })).status).toBe(403);
    expect((await m.api('GET', `/nodes/${'0'.repeat(24)}/key`)).status).toBe(404);
  });
});

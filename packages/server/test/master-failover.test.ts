import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, ENGINE, createTestDatabase, startTestMasterOn, type TestMaster } from './harness.ts';
import { CLI, REPO, killGroup, spawnNode, type ChildNode } from './nodes.helpers.ts';
import { gatePath, makeSpider, runSpider, waitFor, waitTask } from './tasks.helpers.ts';
import { adminTokenWhenUp, freePort } from './support/master-process.ts';

// Masters A and B share one PostgreSQL store. A node that knows both joins A; another knows only A. A is killed -9
// and stays down: the first node carries on with B, and its task (mid-run) finishes there with every line and item;
// the second is silent for good, and B, which never heard it, marks it offline and its task abnormal, once.
const pgOnly = ENGINE === 'postgres' ? describe : describe.skip;

const KEY = 'failover-key';
const LINES = 2000;
const ITEMS = 1000;
const OFFLINE_SECONDS = 6;
const HEARTBEAT_SECONDS = 1;

let db: { url: string; drop(): Promise<void> } | undefined;
let a: ChildProcess | undefined;
let b: TestMaster | undefined;
const nodes: ChildNode[] = [];
const pids: number[] = [];
const cleanup: string[] = [];

afterAll(async () => {
  a?.kill('SIGKILL');
  for (const n of nodes) n.proc.kill('SIGKILL');
  for (const pid of pids) killGroup(pid);
  await b?.close();
  await db?.drop();
  for (const p of cleanup) rmSync(p, { recursive: true, force: true });
});

function startMasterA(port: number, databaseUrl: string): ChildProcess {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-failover-a-'));
  cleanup.push(dataDir);
  return spawn(process.execPath, ['--import', 'tsx', CLI, 'start', '--port', String(port), '--data-dir', dataDir], {
    cwd: REPO,
    env: {
      ...process.env,
      CRAWLDECK_HOST: '127.0.0.1',
      CRAWLDECK_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CRAWLDECK_NODE_KEY: KEY,
      CRAWLDECK_EMBEDDED_NODE: '0',
      CRAWLDECK_LOG_LEVEL: 'warn',
      CRAWLDECK_DATABASE_URL: databaseUrl,
      CRAWLDECK_NODE_OFFLINE_SECONDS: String(OFFLINE_SECONDS),
      CRAWLDECK_NODE_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Writes LINES lines and ITEMS items; halfway it waits for the gate, so it is certainly mid-run when A dies. */
const spiderCode = (gate: string) => `import os, time
from crawldeck import save_item
for i in range(${LINES}):
    if i == ${LINES / 2}:
        while not os.path.exists(${JSON.stringify(gate)}):
            time.sleep(0.05)
    print("line %d" % i, flush=True)
    if i % 2 == 0:
        save_item({"i": i // 2})
`;

async function nodeId(m: TestMaster, name: string): Promise<string> {
  return waitFor(`node ${name} online`, async () => {
    const list = (await m.api('GET', '/nodes')).body.data as { _id: string; name: string; status: string }[];
    return list.find((n) => n.name === name && n.status === 'online')?._id;
  });
}

async function runningTask(m: TestMaster, taskId: string, minLines: number): Promise<{ pid: number }> {
  const t = await waitFor(`task ${taskId} running`, async () => {
    const row = (await m.api('GET', `/tasks/${taskId}`)).body.data;
    return row.status === 'running' && row.pid && row.log_count >= minLines ? row : undefined;
  });
  pids.push(t.pid);
  return t;
}

pgOnly('failover between masters sharing one PostgreSQL store', () => {
  it('a killed master’s node moves on with its task and loses nothing; its dead node goes offline once', async () => {
    db = await createTestDatabase();
    const port = await freePort();
    const aUrl = `http://127.0.0.1:${port}`;
    a = startMasterA(port, db.url);
    await adminTokenWhenUp(aUrl, ADMIN_PASSWORD, 30_000);
    b = await startTestMasterOn(db.url, {
      nodeKey: KEY,
      embeddedNode: false,
      nodeOfflineMs: OFFLINE_SECONDS * 1000,
      nodeHeartbeatMs: HEARTBEAT_SECONDS * 1000,
    });
    const offline: string[] = [];
    b.master.ctx.events.on('node.offline', ({ nodeId }) => offline.push(nodeId));

    // Both nodes join A first: the mover lists A then B, the doomed node knows only A.
    nodes.push(spawnNode(`${aUrl},${b.url}`, KEY, 'mover'), spawnNode(aUrl, KEY, 'doomed'));
    const [mover, doomed] = nodes;
    const moverId = await nodeId(b, 'mover');
    const doomedId = await nodeId(b, 'doomed');
    expect(mover.output()).toContain(`"master":"${aUrl}"`);
    expect(b.master.ctx.execution.liveSession(moverId)).toBeUndefined();

    const gate = gatePath('failover');
    cleanup.push(gate);
    const steady = await makeSpider(b, 'steady', 'python3 main.py', { 'main.py': spiderCode(gate) });
    const [moving] = await runSpider(b, steady, { run_type: 'selected-nodes', node_ids: [moverId] });
    const stuck = await makeSpider(b, 'stuck', `python3 -c "import time; time.sleep(600)"`);
    const [lost] = await runSpider(b, stuck, { run_type: 'selected-nodes', node_ids: [doomedId] });
    const first = await runningTask(b, moving, 100);
    await runningTask(b, lost, 0);

    a.kill('SIGKILL');
    await new Promise((r) => a!.once('exit', r));
    doomed.proc.kill('SIGKILL');

    // The mover registers with B, which follows it for the task it still runs.
    await waitFor('the mover held by B', async () => b!.master.ctx.execution.liveSession(moverId), 30_000);
    writeFileSync(gate, '');
    const done = await waitTask(b, moving, ['finished', 'error', 'abnormal', 'cancelled'], 60_000);
    const results = await b.api('GET', `/tasks/${moving}/results`, { query: { page_size: ITEMS + 10 } });
    const log = await b.api('GET', `/tasks/${moving}/log`, { query: { page_size: LINES + 10 } });
    console.log(
      `master failover: written ${LINES} lines / ${ITEMS} items, stored ${done.log_count} / ${done.result_count} (${done.status})`,
    );
    expect(done.status).toBe('finished');
    expect(done.pid).toBe(first.pid);
    expect(done.log_count).toBe(LINES);
    expect(done.result_count).toBe(ITEMS);
    expect(log.body.data.map((l: { msg: string }) => l.msg)).toEqual(
      Array.from({ length: LINES }, (_, i) => `line ${i}`),
    );
    expect(results.body.data.map((r: { i: number }) => r.i)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));

    // The doomed node: offline by B's look at the store, its task abnormal; the mover stayed online throughout.
    const ended = await waitTask(b, lost, ['abnormal', 'finished', 'error'], 60_000);
    expect(ended.status).toBe('abnormal');
    const sweeps = b.master.ctx.execution.sweep.storeSweeps;
    await waitFor('two more looks at the store', async () => b!.master.ctx.execution.sweep.storeSweeps >= sweeps + 2);
    expect(offline).toEqual([doomedId]);
    const list = (await b.api('GET', '/nodes')).body.data as { _id: string; status: string }[];
    expect(list.find((n) => n._id === doomedId)?.status).toBe('offline');
    expect(list.find((n) => n._id === moverId)?.status).toBe('online');
    const tasks = (await b.api('GET', '/tasks', { query: { page_size: 50 } })).body;
    expect(tasks.total).toBe(2);
  });

  it('two live masters find the same silent node: one of them marks it offline', async () => {
    const c = await startTestMasterOn(db!.url, {
      nodeKey: KEY,
      embeddedNode: false,
      nodeOfflineMs: OFFLINE_SECONDS * 1000,
    });
    try {
      const offline: string[] = [];
      for (const m of [b!, c]) m.master.ctx.events.on('node.offline', ({ nodeId }) => offline.push(nodeId));
      // A node as a master that is gone left it: not offline, last heard two windows ago.
      const id = 'f0' + '0'.repeat(22);
      const heard = Date.now() - 2 * OFFLINE_SECONDS * 1000;
      await b!.master.store.db
        .insertInto('nodes')
        .values({
          id,
          name: 'left-behind',
          description: '',
          type: 'worker',
          status: 'online',
          enabled: 1,
          max_runners: 2,
          running: 0,
          ip: '10.0.0.2',
          system_info: JSON.stringify({
            os: 'linux',
            arch: 'x64',
            num_cpu: 2,
            hostname: 'x',
            executables: [],
            python: '',
          }),
          metrics: 'null',
          last_seen_ts: heard,
          create_ts: heard,
          update_ts: heard,
        })
        .execute();
      const sweeps = [b!, c].map((m) => m.master.ctx.execution.sweep.storeSweeps);
      await waitFor('both masters looked twice', async () =>
        [b!, c].every((m, i) => m.master.ctx.execution.sweep.storeSweeps >= sweeps[i] + 2),
      );
      expect(offline).toEqual([id]);
      const row = (await b!.api('GET', `/nodes/${id}`)).body.data;
      expect(row.status).toBe('offline');
    } finally {
      await c.close();
    }
  });
});

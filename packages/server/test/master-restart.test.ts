import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE, createTestDatabase } from './harness.ts';
import { CLI, REPO, groupAlive, killGroup, spawnNode, type ChildNode } from './nodes.helpers.ts';
import { gatePath, waitFor } from './tasks.helpers.ts';
import { adminTokenWhenUp, freePort } from './support/master-process.ts';

const KEY = 'restart-node-key';
const PASSWORD = 'admin-pass';
const LINES = 3000;
const ITEMS = 1500;

let master: ChildProcess | undefined;
let node: ChildNode | undefined;
let db: { url: string; drop(): Promise<void> } | undefined;
let dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-restart-'));
const dataDirs = [dataDir];
const taskPids: number[] = [];
let gate = '';

afterAll(async () => {
  master?.kill('SIGKILL');
  node?.proc.kill('SIGKILL');
  for (const pid of taskPids) killGroup(pid);
  await db?.drop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  if (gate) rmSync(gate, { force: true });
});

function startMasterProcess(port: number, embeddedNode = false): ChildProcess {
  const p = spawn(process.execPath, ['--import', 'tsx', CLI, 'start', '--port', String(port), '--data-dir', dataDir], {
    cwd: REPO,
    env: {
      ...process.env,
      CRAWLDECK_HOST: '127.0.0.1',
      CRAWLDECK_ADMIN_PASSWORD: PASSWORD,
      CRAWLDECK_NODE_KEY: KEY,
      CRAWLDECK_EMBEDDED_NODE: embeddedNode ? '1' : '0',
      CRAWLDECK_LOG_LEVEL: 'warn',
      CRAWLDECK_DATABASE_URL: db?.url ?? '',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return p;
}

/** Sign-in and API calls against a master process on `url`. */
function client(url: string) {
  let token = '';
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}/api${route}`, {
      method,
      headers: { authorization: token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as { status: string; data: any; total?: number; error?: string };
  };
  const login = async () => {
    token = await adminTokenWhenUp(url, PASSWORD, 30_000);
  };
  return { api, login };
}

const code = `import time, sys
from crawldeck import save_item
for i in range(${LINES}):
    print("line %d" % i, flush=True)
    if i % 2 == 0:
        save_item({"i": i // 2})
    if i % 30 == 0:
        time.sleep(0.05)
`;

async function expectExact(api: ReturnType<typeof client>['api'], taskId: string) {
  const done = await waitFor(
    'task finished',
    async () => {
      const t = (await api('GET', `/tasks/${taskId}`)).data;
      return t && ['finished', 'error', 'abnormal'].includes(t.status) ? t : undefined;
    },
    60_000,
    200,
  );
  console.log(
    `master kill -9: written ${LINES} lines / ${ITEMS} items, stored ${done.log_count} / ${done.result_count} (${done.status})`,
  );
  expect(done.status).toBe('finished');
  expect(done.log_count).toBe(LINES);
  expect(done.result_count).toBe(ITEMS);
  const log = await api('GET', `/tasks/${taskId}/log?page_size=${LINES + 10}`);
  expect(log.total).toBe(LINES);
  expect(log.data.map((l: { msg: string }) => l.msg)).toEqual(Array.from({ length: LINES }, (_, i) => `line ${i}`));
  const results = await api('GET', `/tasks/${taskId}/results?page_size=${ITEMS + 10}`);
  expect(results.total).toBe(ITEMS);
  expect(results.data.map((r: { i: number }) => r.i)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
  return done;
}

describe('master restart mid-task', () => {
  it('loses no log line and no item (exact counts) when the master is killed and restarted', async () => {
    if (ENGINE === 'postgres') db = await createTestDatabase();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    master = startMasterProcess(port);
    const { api, login } = client(url);
    await login();
    node = spawnNode(url, KEY, 'survivor');
    await waitFor(
      'node online',
      async () => (await api('GET', '/nodes')).data.some((n: { status: string }) => n.status === 'online'),
      30_000,
    );

    const spider = await api('PUT', '/spiders', { name: 'steady', cmd: 'python3 main.py', type: 'customized' });
    await api('POST', `/spiders/${spider.data._id}/file`, { path: 'main.py', content: code });
    const [taskId] = (await api('PUT', '/tasks', { spider_id: spider.data._id, run_type: 'random' })).data as string[];
    await waitFor(
      'some lines stored',
      async () => {
        const t = (await api('GET', `/tasks/${taskId}`)).data;
        if (t.pid) taskPids.push(t.pid);
        return t.status === 'running' && t.log_count > 100;
      },
      30_000,
    );

    master.kill('SIGKILL');
    await new Promise((r) => master!.once('exit', r));
    await new Promise((r) => setTimeout(r, 1500));
    master = startMasterProcess(port);
    await login();
    await expectExact(api, taskId);
  });

  it('the spider of a task on the embedded node outlives the killed master and is taken over by its next start', async () => {
    master?.kill('SIGKILL');
    node?.proc.kill('SIGKILL');
    await db?.drop();
    db = ENGINE === 'postgres' ? await createTestDatabase() : undefined;
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-restart-'));
    dataDirs.push(dataDir);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    master = startMasterProcess(port, true);
    const { api, login } = client(url);
    await login();
    await waitFor(
      'embedded node online',
      async () => (await api('GET', '/nodes')).data.some((n: { status: string }) => n.status === 'online'),
      30_000,
    );
    // Halfway the spider waits for the gate: it is certainly alive when the master is back.
    gate = gatePath('master-restart');
    const gated = code.replace(
      '    print(',
      `    if i == ${LINES / 2}:\n        import os\n        while not os.path.exists(${JSON.stringify(gate)}):\n            time.sleep(0.05)\n    print(`,
    );
    const spider = await api('PUT', '/spiders', { name: 'on-master', cmd: 'python3 main.py', type: 'customized' });
    await api('POST', `/spiders/${spider.data._id}/file`, { path: 'main.py', content: gated });
    const [taskId] = (await api('PUT', '/tasks', { spider_id: spider.data._id, run_type: 'random' })).data as string[];
    const running = await waitFor(
      'some lines stored',
      async () => {
        const t = (await api('GET', `/tasks/${taskId}`)).data;
        return t.status === 'running' && t.log_count > 100 ? t : undefined;
      },
      30_000,
    );
    taskPids.push(running.pid);

    master.kill('SIGKILL');
    await new Promise((r) => master!.once('exit', r));
    // The master and its embedded node are gone; the spider goes on writing into the spool.
    expect(groupAlive(running.pid)).toBe(true);
    master = startMasterProcess(port, true);
    await login();
    await waitFor(
      'embedded node back',
      async () => (await api('GET', '/nodes')).data.some((n: { status: string }) => n.status === 'online'),
      30_000,
    );
    writeFileSync(gate, '');
    const done = await expectExact(api, taskId);
    expect(done.exit_code).toBe(0);
    expect(groupAlive(running.pid)).toBe(false);
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../src/app.ts';
import { loadConfig, type MasterConfig } from '../src/config.ts';
import { startMaster, type RunningMaster } from '../src/master.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { ADMIN_PASSWORD, ENGINE, createTestDatabase } from './harness.ts';
import { groupAlive, killGroup, spawnNode, type ChildNode } from './nodes.helpers.ts';
import { freePort } from './support/master-process.ts';
import { waitFor } from './tasks.helpers.ts';

// The offline window must outlast the node's longest reconnect pause (about 5 s), so a node that is alive always
// gets back within it once the master listens.
process.env.CRAWLDECK_NODE_OFFLINE_SECONDS = '6';
process.env.CRAWLDECK_NODE_HEARTBEAT_SECONDS = '1';

const KEY = 'slow-restart-key';
const LINES = 400;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-slow-restart-'));
// Outside /tmp: a task has a /tmp of its own.
const gate = path.join('/var/tmp', `crawldeck-gate-${randomBytes(6).toString('hex')}`);
let db: { url: string; drop(): Promise<void> } | undefined;
let first: RunningMaster | undefined;
let second: { built: BuiltApp; store: Store } | undefined;
let node: ChildNode | undefined;
const pids: number[] = [];

afterAll(async () => {
  node?.proc.kill('SIGKILL');
  for (const pid of pids) killGroup(pid);
  await first?.close().catch(() => undefined);
  if (second) {
    await second.built.close();
    await second.store.close();
  }
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(gate, { force: true });
  if (node) rmSync(node.dataDir, { recursive: true, force: true });
});

/** Calls the API of the master on `url` as the admin (the session survives restarts: it is in the store). */
function client(url: string) {
  let token = '';
  return async (method: string, route: string, body?: unknown) => {
    if (!token) {
      const r = await fetch(`${url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
      });
      token = ((await r.json()) as { data: string }).data;
    }
    const res = await fetch(`${url}/api${route}`, {
      method,
      headers: { authorization: token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as { data: any; total?: number };
  };
}

describe('a master whose restart takes longer than the offline window', () => {
  it('keeps the running task of a worker: not abnormal, not retried, taken back over, every line once', async () => {
    if (ENGINE === 'postgres') db = await createTestDatabase();
    const port = await freePort();
    const overrides: Partial<MasterConfig> = {
      port,
      host: '127.0.0.1',
      dataDir,
      databaseUrl: db?.url ?? '',
      adminPassword: ADMIN_PASSWORD,
      embeddedNode: false,
      nodeKey: KEY,
      logLevel: 'warn',
    };
    first = await startMaster(overrides);
    const api = client(first.url);
    node = spawnNode(first.url, KEY, 'patient');
    const nodeId = await waitFor('node online', async () => {
      const n = (await api('GET', '/nodes')).data.find((x: { status: string }) => x.status === 'online');
      return n?._id as string | undefined;
    });

    // Halfway the spider waits for the gate: it is certainly alive while the master is away and once it is back.
    const spider = await api('PUT', '/spiders', {
      name: 'patient',
      cmd: 'python3 main.py',
      type: 'customized',
      retries: 1,
    });
    const spiderId = spider.data._id as string;
    await api('POST', `/spiders/${spiderId}/file`, {
      path: 'main.py',
      content: `import os, time
for i in range(${LINES}):
    if i == ${LINES / 2}:
        while not os.path.exists(${JSON.stringify(gate)}):
            time.sleep(0.05)
    print("line %d" % i, flush=True)
`,
    });
    const [taskId] = (await api('PUT', '/tasks', { spider_id: spiderId, run_type: 'random' })).data as string[];
    const running = await waitFor('task running', async () => {
      const t = (await api('GET', `/tasks/${taskId}`)).data;
      return t.status === 'running' && t.pid ? t : undefined;
    });
    pids.push(running.pid);

    await first.close();
    first = undefined;
    // The master starts again as startMaster does, but slowly: its app is built, then a whole offline window and
    // more pass before it listens.
    const config = loadConfig(overrides);
    const store = openStore(config);
    await migrateToLatest(store.db, store.engine);
    const built = await buildApp(config, store);
    second = { built, store };
    const seen: string[] = [];
    built.ctx.events.on('task.status', (ev) => seen.push(`${ev.taskId} ${ev.status}`));
    const rt = built.ctx.execution;
    expect(rt.offlinePending(nodeId)).toBe(false);
    await new Promise((r) => setTimeout(r, config.nodeOfflineMs + 1500));
    expect(seen).toEqual([]);
    await built.app.listen({ port, host: '127.0.0.1' });
    // From here the node has one window to come back.
    await waitFor('offline clock started', async () => rt.offlinePending(nodeId));
    expect(groupAlive(running.pid)).toBe(true);

    await waitFor('node back online', async () => {
      const n = (await api('GET', `/nodes/${nodeId}`)).data;
      return n.status === 'online';
    });
    writeFileSync(gate, '');
    const done = await waitFor(
      'task finished',
      async () => {
        const t = (await api('GET', `/tasks/${taskId}`)).data;
        return ['finished', 'error', 'cancelled'].includes(t.status) ? t : undefined;
      },
      60_000,
    );
    const log = await api('GET', `/tasks/${taskId}/log?page_size=${LINES + 10}`);
    const tasks = await api('GET', `/tasks?spider_id=${spiderId}`);
    console.log(
      `slow restart: written ${LINES} lines, stored ${done.log_count}; tasks of the spider ${tasks.total}; ` +
        `status events seen by the new master: ${seen.join(', ')}`,
    );
    expect(seen.filter((s) => s.endsWith(' abnormal'))).toEqual([]);
    expect(done.status).toBe('finished');
    expect(done.error).toBe('');
    expect(done.log_count).toBe(LINES);
    expect(log.data.map((l: { msg: string }) => l.msg)).toEqual(Array.from({ length: LINES }, (_, i) => `line ${i}`));
    // No retry was made: the crawl ran once.
    expect(tasks.total).toBe(1);
    expect(groupAlive(running.pid)).toBe(false);
  }, 120_000);
});

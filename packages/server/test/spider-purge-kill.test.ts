import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE, createTestDatabase } from './harness.ts';
import { CLI, REPO } from './nodes.helpers.ts';
import { waitFor } from './tasks.helpers.ts';
import { adminTokenWhenUp, freePort } from './support/master-process.ts';

const PASSWORD = 'admin-pass';
/** Tasks of the deleted spider: many rounds of the purge, so that a kill lands in the middle of it. */
const GONE_TASKS = 60_000;
/** Tasks of the deleted spider with log lines and items, and tasks of the spider that stays (all with output). */
const WITH_OUTPUT = 40;
const KEPT_TASKS = 30;
const LINES = 3;
const ITEMS = 2;

let master: ChildProcess | undefined;
let db: { url: string; drop(): Promise<void> } | undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-purge-kill-'));

afterAll(async () => {
  master?.kill('SIGKILL');
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function startMaster(port: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CLI, 'start', '--port', String(port), '--data-dir', dataDir], {
    cwd: REPO,
    env: {
      ...process.env,
      CRAWLDECK_HOST: '127.0.0.1',
      CRAWLDECK_ADMIN_PASSWORD: PASSWORD,
      CRAWLDECK_NODE_KEY: 'purge-kill-key',
      CRAWLDECK_EMBEDDED_NODE: '0',
      CRAWLDECK_LOG_LEVEL: 'warn',
      CRAWLDECK_DATABASE_URL: db?.url ?? '',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Signs in to the master on `url` (waiting for it to listen) and answers an API caller. */
async function signIn(url: string) {
  const token = await adminTokenWhenUp(url, PASSWORD, 60_000);
  return async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}${route.startsWith('/metrics') ? '' : '/api'}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return route.startsWith('/metrics') ? await res.text() : ((await res.json()) as { data: any; total?: number });
  };
}

/** One statement on the store, from outside the master (the store's file, or its PostgreSQL database). */
async function storeRun(q: string): Promise<any[]> {
  if (db) {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query(q)).rows;
    } finally {
      await c.end();
    }
  }
  const conn = new Database(path.join(dataDir, 'crawldeck.db'));
  conn.pragma('busy_timeout = 10000');
  try {
    const st = conn.prepare(q);
    return st.reader ? st.all() : (st.run(), []);
  } finally {
    conn.close();
  }
}

const count = async (q: string) => Number((await storeRun(`SELECT COUNT(*) AS n FROM ${q}`))[0].n);
const series = (n: number) =>
  db
    ? `generate_series(0, ${n - 1}) AS s(n)`
    : `(WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < ${n - 1}) SELECT n FROM s) AS s`;
const hex = (prefix: string, e: string) =>
  db ? `'${prefix}' || lpad(to_hex(${e}), 20, '0')` : `printf('${prefix}%020x', ${e})`;

/**
 * Tasks of a spider, one in five in error, created over the last hour; the first `withOutput` of them with LINES
 * log lines and ITEMS items each (their counters set as the ingest sets them).
 */
async function seedTasks(spiderId: string, prefix: string, n: number, withOutput: number): Promise<void> {
  const now = Date.now() - 3_600_000;
  const out = (e: string) => `CASE WHEN n < ${withOutput} THEN ${e} ELSE 0 END`;
  await storeRun(`INSERT INTO tasks (id, spider_id, node_id, status, run_type, create_ts, owner_id, log_lines, result_count)
    SELECT ${hex(prefix, 'n')}, '${spiderId}', 'node-x', CASE WHEN n % 5 = 0 THEN 'error' ELSE 'finished' END, 'random',
      ${now} + n / 20, NULL, ${out(String(LINES))}, ${out(String(ITEMS))} FROM ${series(n)}`);
  await storeRun(`INSERT INTO task_logs (task_id, line_no, msg, is_error)
    SELECT ${hex(prefix, 'n / ' + LINES)}, n % ${LINES} + 1, 'line', 0 FROM ${series(withOutput * LINES)}`);
  await storeRun(`INSERT INTO results (collection, task_id, spider_id, data, create_ts)
    SELECT 'c', ${hex(prefix, 'n / ' + ITEMS)}, '${spiderId}', '{}', ${now} FROM ${series(withOutput * ITEMS)}`);
}

/** The value of one sample of a /metrics scrape (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('deleting a spider of many tasks, the master killed mid-purge', () => {
  it('counts leave its tasks out at once, and a start after a kill -9 finishes the purge', async () => {
    if (ENGINE === 'postgres') db = await createTestDatabase();
    const url = `http://127.0.0.1:${await freePort()}`;
    master = startMaster(Number(new URL(url).port));
    let api = await signIn(url);
    const spider = async (name: string) =>
      ((await api('PUT', '/spiders', { name, cmd: 'echo x', type: 'customized' })) as { data: { _id: string } }).data
        ._id;
    const [gone, kept] = [await spider('purge-kill-gone'), await spider('purge-kill-kept')];
    await seedTasks(gone, 'aa', GONE_TASKS, WITH_OUTPUT);
    await seedTasks(kept, 'bb', KEPT_TASKS, KEPT_TASKS);
    const keptErrors = Math.ceil(KEPT_TASKS / 5);
    const home = async () => ((await api('GET', '/stats/home')) as { data: any }).data;
    expect((await home()).tasks).toBe(GONE_TASKS + KEPT_TASKS);

    expect(((await api('DELETE', `/spiders/${gone}`)) as { data: unknown }).data).toBeDefined();
    // Every count leaves the spider's tasks out at once, while most of them are still stored.
    const stats = await home();
    const metrics = (await api('GET', '/metrics')) as string;
    const listed = (await api('GET', '/tasks?page_size=10')) as { total?: number };
    expect(await count(`tasks WHERE spider_id = '${gone}'`)).toBeGreaterThan(GONE_TASKS / 2);
    expect(stats.tasks).toBe(KEPT_TASKS);
    expect(Object.fromEntries(stats.status.map((s: { status: string; count: number }) => [s.status, s.count]))).toEqual(
      { finished: KEPT_TASKS - keptErrors, error: keptErrors },
    );
    expect(stats.daily.reduce((sum: number, d: { tasks: number }) => sum + d.tasks, 0)).toBe(KEPT_TASKS);
    expect(sample(metrics, 'crawldeck_tasks{status="finished"}')).toBe(KEPT_TASKS - keptErrors);
    expect(sample(metrics, 'crawldeck_tasks{status="error"}')).toBe(keptErrors);
    expect(listed.total).toBe(KEPT_TASKS);

    // Killed once the purge has begun, before it ends.
    await waitFor(
      'purge begun',
      async () => (await count(`tasks WHERE spider_id = '${gone}'`)) < GONE_TASKS,
      30_000,
      5,
    );
    master.kill('SIGKILL');
    await new Promise((r) => master!.once('exit', r));
    expect(await count(`tasks WHERE spider_id = '${gone}'`)).toBeGreaterThan(0);
    expect(await count(`spider_purges WHERE spider_id = '${gone}'`)).toBe(1);

    master = startMaster(Number(new URL(url).port));
    api = await signIn(url);
    expect((await home()).tasks).toBe(KEPT_TASKS);
    await waitFor(
      'purge finished after the restart',
      async () =>
        (await count(`spider_purges WHERE spider_id = '${gone}'`)) === 0 &&
        (await count(`tasks WHERE spider_id = '${gone}'`)) === 0,
      90_000,
      100,
    );
    // Exactly the spider's tasks went, with their lines and items; the other spider's are whole.
    expect(await count(`task_logs WHERE task_id LIKE 'aa%'`)).toBe(0);
    expect(await count(`results WHERE task_id LIKE 'aa%'`)).toBe(0);
    expect(await count(`tasks WHERE spider_id = '${kept}'`)).toBe(KEPT_TASKS);
    expect(await count(`task_logs WHERE task_id LIKE 'bb%'`)).toBe(KEPT_TASKS * LINES);
    expect(await count(`results WHERE task_id LIKE 'bb%'`)).toBe(KEPT_TASKS * ITEMS);
    const after = await home();
    expect(after.tasks).toBe(KEPT_TASKS);
    expect(after.status.find((s: { status: string }) => s.status === 'error').count).toBe(keptErrors);
  }, 180_000);
});

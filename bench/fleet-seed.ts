/**
 * The fleet benchmark's big store: finished tasks and a week of per-minute node metrics inserted by bulk SQL
 * between the master's first start (which creates the schema) and the start that is measured. The simulated nodes
 * of the fleet take the ids the metrics were written for (`benchNodeId`), so their history is the fleet's own.
 * A seeded store is kept (a SQLite file in the temporary directory, a PostgreSQL template database `wt_fleet_big_…`)
 * and copied for the next master with the same plan, so runs before and after a change start from the same rows;
 * BENCH_BIG_DROP=1 removes the kept copies at the end.
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

const MINUTE_MS = 60_000;
const SLICE = 100_000;

/** The id of the i-th simulated node of a seeded fleet. */
export const benchNodeId = (i: number) => 'be' + i.toString(16).padStart(22, '0');

export interface SeedPlan {
  tasks: number;
  metricsNodes: number;
  metricsDays: number;
  /** Spiders the tasks belong to (created through the API by the first master). */
  spiders?: string[];
  /** Name prefix of the kept copy (`wt_fleet_big` unless set): a benchmark with its own plans keeps its own. */
  keptPrefix?: string;
  /** Log lines and items of every seeded task (none unless set), with the task's counters to match. */
  taskOutput?: { lines: number; items: number };
}

interface Exec {
  run(q: string): Promise<void>;
  adminId(): Promise<string>;
  close(): Promise<void>;
}

async function open(store: { dataDir: string; databaseUrl: string }): Promise<Exec> {
  if (store.databaseUrl) {
    const c = new pg.Client({ connectionString: store.databaseUrl });
    await c.connect();
    return {
      run: async (q) => void (await c.query(q)),
      adminId: async () => (await c.query(`SELECT id FROM users WHERE role = 'admin' LIMIT 1`)).rows[0].id as string,
      close: () => c.end(),
    };
  }
  const db = new Database(`${store.dataDir}/crawldeck.db`);
  db.pragma('busy_timeout = 5000');
  return {
    run: async (q) => void db.exec(q),
    adminId: async () => (db.prepare(`SELECT id FROM users WHERE role = 'admin' LIMIT 1`).get() as { id: string }).id,
    close: async () => void db.close(),
  };
}

/** Integers from..to-1 as rows `n`, in the engine's own way. */
function series(postgres: boolean, from: number, to: number): string {
  return postgres
    ? `generate_series(${from}, ${to - 1}) AS s(n)`
    : `(WITH RECURSIVE s(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM s WHERE n < ${to - 1}) SELECT n FROM s) AS s`;
}

const hex = (postgres: boolean, expr: string) =>
  postgres ? `lpad(to_hex(${expr}), 24, '0')` : `printf('%024x', ${expr})`;

/** Integers 1..to as rows `k` (a second series beside `series`). */
function perTask(postgres: boolean, to: number): string {
  return postgres
    ? `generate_series(1, ${to}) AS p(k)`
    : `(WITH RECURSIVE p(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM p WHERE k < ${to}) SELECT k FROM p) AS p`;
}

/** Finished tasks spread over the spiders, three a millisecond, the newest a day old, with their output if asked. */
async function seedTasks(x: Exec, postgres: boolean, plan: SeedPlan): Promise<void> {
  const { tasks: count, spiders = [], taskOutput: out = { lines: 0, items: 0 } } = plan;
  const owner = await x.adminId();
  const base = Date.now() - 24 * 3600_000 - Math.ceil(count / 3);
  const spider = `CASE n % ${spiders.length} ${spiders.map((id, k) => `WHEN ${k} THEN '${id}'`).join(' ')} END`;
  const id = hex(postgres, `${0xa000000} + n`);
  for (let a = 0; a < count; a += SLICE) {
    const b = Math.min(count, a + SLICE);
    await x.run(`INSERT INTO tasks (id, spider_id, node_id, status, run_type, create_ts, owner_id, log_lines,
        result_count)
      SELECT ${id}, ${spider}, '${benchNodeId(0)}', 'finished', 'random', ${base} + n / 3, '${owner}', ${out.lines},
        ${out.items}
      FROM ${series(postgres, a, b)}`);
    if (out.lines)
      await x.run(`INSERT INTO task_logs (task_id, line_no, msg, is_error)
        SELECT ${id}, k, 'seeded line ' || k || ' of a task log, about as long as a crawler''s usual log line', 0
        FROM ${series(postgres, a, b)} CROSS JOIN ${perTask(postgres, out.lines)}`);
    if (out.items)
      await x.run(`INSERT INTO results (collection, task_id, spider_id, data, create_ts)
        SELECT 'seeded', ${id}, ${spider}, '{"url":"https://example.com/' || n || '","k":' || k || '}', ${base} + n / 3
        FROM ${series(postgres, a, b)} CROSS JOIN ${perTask(postgres, out.items)}`);
  }
}

/** The nodes the metrics belong to, as registered before (offline until the fleet connects). */
async function seedNodes(x: Exec, postgres: boolean, nodes: number): Promise<void> {
  const now = Date.now() - 7 * 24 * 3600_000;
  const id = postgres ? `'be' || lpad(to_hex(n), 22, '0')` : `'be' || printf('%022x', n)`;
  await x.run(`INSERT INTO nodes (id, name, description, type, status, enabled, max_runners, running, ip, system_info,
      metrics, last_seen_ts, create_ts, update_ts)
    SELECT ${id}, 'sim-' || n, '', 'worker', 'offline', 1, 4, 0, '', 'null', 'null', ${now}, ${now} + n, ${now}
    FROM ${series(postgres, 0, nodes)}`);
}

/**
 * One row a minute for each node over the last `days` days (up to the minute before the master starts), written
 * minute after minute as the master writes them: a minute's rows of all nodes sit next to each other in the table.
 */
async function seedMetrics(x: Exec, postgres: boolean, nodes: number, days: number): Promise<void> {
  const minutes = days * 24 * 60;
  const last = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - MINUTE_MS;
  const first = last - (minutes - 1) * MINUTE_MS;
  const total = nodes * minutes;
  const nodeId = postgres ? `'be' || lpad(to_hex(n % ${nodes}), 22, '0')` : `'be' || printf('%022x', n % ${nodes})`;
  for (let a = 0; a < total; a += SLICE) {
    const b = Math.min(total, a + SLICE);
    await x.run(`INSERT INTO node_metrics (node_id, ts, cpu, mem, disk, running)
      SELECT ${nodeId}, ${first} + (n / ${nodes}) * ${MINUTE_MS}, n % 97, n % 89, 40, n % 5
      FROM ${series(postgres, a, b)}`);
  }
}

const PG_ADMIN = process.env.CRAWLDECK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(q: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: PG_ADMIN });
  await c.connect();
  try {
    return await c.query(q);
  } finally {
    await c.end();
  }
}

const keptName = (plan: SeedPlan) =>
  `${plan.keptPrefix ?? 'wt_fleet_big'}_${plan.tasks}_${plan.metricsNodes}_${plan.metricsDays}` +
  (plan.taskOutput ? `_out_${plan.taskOutput.lines}_${plan.taskOutput.items}` : '');
const keptFile = (plan: SeedPlan) => path.join(os.tmpdir(), `${keptName(plan)}.db`);

/** Replaces the store with the kept copy of the plan; false when there is none yet. */
async function restoreKept(store: { dataDir: string; databaseUrl: string }, plan: SeedPlan): Promise<boolean> {
  if (!store.databaseUrl) {
    if (!existsSync(keptFile(plan))) return false;
    const file = path.join(store.dataDir, 'crawldeck.db');
    for (const f of [`${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    copyFileSync(keptFile(plan), file);
    return true;
  }
  const kept = await admin(`SELECT 1 FROM pg_database WHERE datname = '${keptName(plan)}'`);
  if (!kept.rowCount) return false;
  const name = new URL(store.databaseUrl).pathname.slice(1);
  await admin(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name} TEMPLATE ${keptName(plan)}`);
  return true;
}

async function keep(store: { dataDir: string; databaseUrl: string }, plan: SeedPlan): Promise<void> {
  if (!store.databaseUrl) {
    const db = new Database(path.join(store.dataDir, 'crawldeck.db'));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    copyFileSync(path.join(store.dataDir, 'crawldeck.db'), keptFile(plan));
    return;
  }
  await admin(`CREATE DATABASE ${keptName(plan)} TEMPLATE ${new URL(store.databaseUrl).pathname.slice(1)}`);
}

/** Removes the kept copy of the plan (BENCH_BIG_DROP=1 at the end of a benchmark). */
export async function dropKept(plan: SeedPlan, postgres: boolean): Promise<void> {
  if (postgres) await admin(`DROP DATABASE IF EXISTS ${keptName(plan)} WITH (FORCE)`);
  else rmSync(keptFile(plan), { force: true });
}

/**
 * Fills the store (or copies the kept one of the same plan); returns the seconds each part took (0 for a copy and
 * `copied`).
 */
export async function seedBigStore(
  store: { dataDir: string; databaseUrl: string },
  plan: SeedPlan,
): Promise<{ tasksS: number; metricsS: number; copied: boolean }> {
  if (await restoreKept(store, plan)) return { tasksS: 0, metricsS: 0, copied: true };
  const t = await seed(store, plan);
  await keep(store, plan);
  return { ...t, copied: false };
}

async function seed(store: { dataDir: string; databaseUrl: string }, plan: SeedPlan) {
  const postgres = !!store.databaseUrl;
  const x = await open(store);
  try {
    const t0 = performance.now();
    await seedTasks(x, postgres, plan);
    const t1 = performance.now();
    await seedNodes(x, postgres, plan.metricsNodes);
    await seedMetrics(x, postgres, plan.metricsNodes, plan.metricsDays);
    const t2 = performance.now();
    if (postgres) await x.run('ANALYZE');
    return { tasksS: (t1 - t0) / 1000, metricsS: (t2 - t1) / 1000 };
  } finally {
    await x.close();
  }
}

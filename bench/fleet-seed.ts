/**
 * The fleet benchmark's big store: finished tasks and a week of per-minute node metrics inserted by bulk SQL
 * between the master's first start (which creates the schema) and the start that is measured. The simulated nodes
 * of the fleet take the ids the metrics were written for (`benchNodeId`), so their history is the fleet's own.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

const MINUTE_MS = 60_000;
const SLICE = 100_000;
const SPIDERS = 20;

/** The id of the i-th simulated node of a seeded fleet. */
export const benchNodeId = (i: number) => 'be' + i.toString(16).padStart(22, '0');

export interface SeedPlan {
  tasks: number;
  metricsNodes: number;
  metricsDays: number;
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

/** Finished tasks of 20 spiders, three a millisecond, the newest a day old. */
async function seedTasks(x: Exec, postgres: boolean, count: number): Promise<void> {
  const owner = await x.adminId();
  const base = Date.now() - 24 * 3600_000 - Math.ceil(count / 3);
  for (let a = 0; a < count; a += SLICE) {
    const b = Math.min(count, a + SLICE);
    await x.run(`INSERT INTO tasks (id, spider_id, node_id, status, run_type, create_ts, owner_id)
      SELECT ${hex(postgres, `${0xa000000} + n`)}, ${hex(postgres, `${0xf00000} + n % ${SPIDERS}`)},
        '${benchNodeId(0)}', 'finished', 'random', ${base} + n / 3, '${owner}'
      FROM ${series(postgres, a, b)}`);
  }
}

/** One row a minute for each node over the last `days` days (up to the minute before the master starts). */
async function seedMetrics(x: Exec, postgres: boolean, nodes: number, days: number): Promise<void> {
  const minutes = days * 24 * 60;
  const last = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - MINUTE_MS;
  const first = last - (minutes - 1) * MINUTE_MS;
  const total = nodes * minutes;
  const nodeId = postgres ? `'be' || lpad(to_hex(n / ${minutes}), 22, '0')` : `'be' || printf('%022x', n / ${minutes})`;
  for (let a = 0; a < total; a += SLICE) {
    const b = Math.min(total, a + SLICE);
    await x.run(`INSERT INTO node_metrics (node_id, ts, cpu, mem, disk, running)
      SELECT ${nodeId}, ${first} + (n % ${minutes}) * ${MINUTE_MS}, n % 97, n % 89, 40, n % 5
      FROM ${series(postgres, a, b)}`);
  }
}

/** Fills the store; returns the seconds each part took. */
export async function seedBigStore(
  store: { dataDir: string; databaseUrl: string },
  plan: SeedPlan,
): Promise<{ tasksS: number; metricsS: number }> {
  const postgres = !!store.databaseUrl;
  const x = await open(store);
  try {
    const t0 = performance.now();
    await seedTasks(x, postgres, plan.tasks);
    const t1 = performance.now();
    await seedMetrics(x, postgres, plan.metricsNodes, plan.metricsDays);
    const t2 = performance.now();
    if (postgres) await x.run('ANALYZE');
    return { tasksS: (t1 - t0) / 1000, metricsS: (t2 - t1) / 1000 };
  } finally {
    await x.close();
  }
}

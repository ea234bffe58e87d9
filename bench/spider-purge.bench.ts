/**
 * Deleting a spider that has hundreds of thousands of tasks, on the fleet benchmark's big store (bench/fleet-seed.ts:
 * finished tasks spread evenly over BENCH_PURGE_SPIDERS spiders, 20 unless set, BENCH_PURGE_TASKS of each, 500 000
 * unless set, or BENCH_BIG_TASKS in all; SQLite unless BENCH_PG=1; BENCH_PURGE_OUTPUT=lines,items gives every
 * seeded task that many log lines and items, none unless set). A master in its own process;
 * the benchmark deletes one seeded spider through the API and measures how long the answer took, how long the
 * background purge of its tasks took, the master's CPU over the purge, its event-loop delay and GET /api/version
 * (sampled every 100 ms) meanwhile. The baseline of the same run, on the same store after the master stopped: the
 * tasks of another seeded spider deleted by one bare `DELETE` in one transaction, which is what the cascade of the
 * spider's deletion did before (the store held for its whole length).
 * Run: `BENCH_BIG_STORE=1 node --import tsx bench/spider-purge.bench.ts` (BENCH_PORT, default 41500).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { api, cpuSeconds, PG, pct, sleep, startMasterProcess, type Master } from './fleet-support.ts';
import { versionProbe } from './version-probe.ts';
import { seedBigStore, type SeedPlan } from './fleet-seed.ts';

/** Seeded spiders; the store holds BENCH_PURGE_TASKS tasks of each (one of them deleted). */
const SPIDERS = Number(process.env.BENCH_PURGE_SPIDERS ?? 20);
const PLAN: SeedPlan = {
  tasks: Number(process.env.BENCH_BIG_TASKS ?? SPIDERS * Number(process.env.BENCH_PURGE_TASKS ?? 500_000)),
  metricsNodes: Number(process.env.BENCH_METRICS_NODES ?? 500),
  metricsDays: Number(process.env.BENCH_METRICS_DAYS ?? 7),
  keptPrefix: `wt_purge_big_${SPIDERS}`,
  taskOutput: taskOutput(process.env.BENCH_PURGE_OUTPUT),
};

/** What each seeded task holds, for the result line. */
const outputNote = () =>
  PLAN.taskOutput ? ` (${PLAN.taskOutput.lines} log lines, ${PLAN.taskOutput.items} items each)` : '';

/** `lines,items` of each seeded task, or no output. */
function taskOutput(spec: string | undefined): SeedPlan['taskOutput'] {
  if (!spec) return undefined;
  const [lines, items = 0] = spec.split(',').map(Number);
  return { lines, items };
}
const PORT = Number(process.env.BENCH_PORT ?? 41500);
const f1 = (n: number) => n.toFixed(1);
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

type SlowStatement = { sql: string; ms: number };

/** Slow statements by their text: how many, the longest. */
function slowSummary(slow: SlowStatement[]): string {
  const by = new Map<string, number[]>();
  for (const st of slow) by.set(st.sql, [...(by.get(st.sql) ?? []), st.ms]);
  return [...by]
    .map(([q, ms]) => `${ms.length}× max ${Math.max(...ms)} ms "${q.replace(/\s+/g, ' ').slice(0, 50)}"`)
    .join('; ');
}

/** A read of the master's store from the benchmark process. */
async function storeQuery(m: Master, q: string, params: unknown[] = []): Promise<any[]> {
  if (m.databaseUrl) {
    const c = new pg.Client({ connectionString: m.databaseUrl });
    await c.connect();
    try {
      let k = 0;
      return (
        await c.query(
          q.replace(/\?/g, () => `$${++k}`),
          params,
        )
      ).rows;
    } finally {
      await c.end();
    }
  }
  const db = new Database(path.join(m.dataDir, 'crawldeck.db'));
  db.pragma('busy_timeout = 5000');
  try {
    return db.prepare(q).all(...params);
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const firstRun = async (first: Master) => {
    PLAN.spiders = [];
    for (let k = 0; k < SPIDERS; k++)
      PLAN.spiders.push(
        (await api(first, 'PUT', '/spiders', { name: `seeded-${k}`, cmd: 'echo seeded', type: 'customized' })).data
          ._id as string,
      );
  };
  const m = await startMasterProcess(PORT, { seed: (s) => seedBigStore(s, PLAN).then(() => undefined), firstRun });
  let baseline = '';
  try {
    const spiders = (await api(m, 'GET', '/spiders?page_size=100')).data.list as { _id: string; name: string }[];
    const [victim, other] = spiders.filter((s) => s.name.startsWith('seeded-'));
    const tasks = Number(
      (await storeQuery(m, 'SELECT COUNT(*) AS n FROM tasks WHERE spider_id = ?', [victim._id]))[0].n,
    );
    await m.probe({ probe: 'reset' });
    const version = versionProbe(m);
    const cpu0 = cpuSeconds(m.proc.pid!);
    const t0 = performance.now();
    await api(m, 'DELETE', `/spiders/${victim._id}`);
    const answerMs = performance.now() - t0;
    while (Number((await storeQuery(m, 'SELECT COUNT(*) AS n FROM spider_purges'))[0].n) > 0) await sleep(500);
    const purgeS = (performance.now() - t0) / 1000;
    const cpuS = cpuSeconds(m.proc.pid!) - cpu0;
    const loop = await m.probe<{ p99: number; max: number; gc: { max: number }; slow: SlowStatement[] }>({
      probe: 'read',
    });
    const v = await version.stop();
    console.log(
      `${PG ? 'postgres' : 'sqlite'} | spider of ${tasks} tasks${outputNote()}: DELETE answered in ${f1(answerMs)} ms, purged in ${f1(purgeS)} s (${Math.round(tasks / purgeS)} tasks/s), master CPU ${f1(cpuS)} s (${((cpuS / tasks) * 1e6).toFixed(0)} µs/task) | loop delay p99 ${f1(loop.p99)} max ${f1(loop.max)} ms, GC max ${f1(loop.gc.max)} ms | GET /version p50 ${f1(pct(v, 50))} p99 ${f1(pct(v, 99))} max ${f1(Math.max(...v))} ms | load ${loadavg()}`,
    );
    if (loop.slow.length)
      console.log(`  SQLite statements over 50 ms on the master's thread: ${slowSummary(loop.slow)}`);
    baseline = other._id;
  } finally {
    await m.probe({ probe: 'reset' }).catch(() => undefined);
    if (baseline && !m.databaseUrl) {
      // The master is stopped first: the baseline holds the store the way the cascade did.
      m.proc.kill('SIGTERM');
      await new Promise((r) => m.proc.once('exit', r));
      const db = new Database(path.join(m.dataDir, 'crawldeck.db'));
      const n = (db.prepare('SELECT COUNT(*) AS n FROM tasks WHERE spider_id = ?').get(baseline) as { n: number }).n;
      const t0 = performance.now();
      db.transaction(() => db.prepare('DELETE FROM tasks WHERE spider_id = ?').run(baseline))();
      console.log(
        `sqlite | bare: one DELETE of ${n} tasks in one transaction: ${f1((performance.now() - t0) / 1000)} s holding the store`,
      );
      db.close();
    }
    await m.stop();
  }
}

await main();

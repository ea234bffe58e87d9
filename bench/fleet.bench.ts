/**
 * Fleet benchmark: a master in its own process (`crawldeck start`, no embedded node) and, in this process, a fleet
 * of simulated nodes speaking the real node protocol (packages/server/test/support/sim-node.ts). For each fleet
 * size in BENCH_FLEETS (default 50,500,5000):
 *  1. Heartbeats: every node beats every 2 s for BENCH_HB_SECONDS; master CPU (from /proc) per second and per
 *     heartbeat over the first half, then GET /api/nodes p50/p99 sampled every 200 ms over the second half.
 *  2. Dispatch: BENCH_TASKS tasks for any node, created through the API; each simulated node starts and finishes
 *     an assigned task at once. Master CPU per dispatched task (create → assign → started → finished), against the
 *     same four statements per task (insert, claim, start, finish) run as bare SQL on the same store.
 * With BENCH_PG=1 the store is PostgreSQL (CRAWLDECK_TEST_PG_URL) and a third part measures log ingest: lines/s
 * of BENCH_INGEST_LINES lines shipped by BENCH_INGEST_TASKS tasks in 20,000-line batches as node spools do (one
 * batch in flight per task), against a bare-SQL insert of the same batches.
 * Run: `node --import tsx bench/fleet.bench.ts`. Ports from BENCH_PORT (41000) up, data under the OS temp dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { SimNode } from '../packages/server/test/support/sim-node.ts';
import { createTestDatabase } from '../packages/server/test/harness.ts';

const FLEETS = (process.env.BENCH_FLEETS ?? '50,500,5000').split(',').map(Number);
const HB_SECONDS = Number(process.env.BENCH_HB_SECONDS ?? 20);
const TASKS = Number(process.env.BENCH_TASKS ?? 500);
const INGEST_LINES = Number(process.env.BENCH_INGEST_LINES ?? 1_000_000);
const INGEST_TASKS = Number(process.env.BENCH_INGEST_TASKS ?? 4);
const PG = process.env.BENCH_PG === '1';
const KEY = 'fleet-bench-key';
const PASSWORD = 'bench-admin';
const REPO = path.resolve(import.meta.dirname, '..');
const TICKS = 100; // clock ticks per second of /proc/<pid>/stat

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}

/** CPU seconds (user + system) the process has used. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICKS;
}

interface Master {
  url: string;
  proc: ChildProcess;
  token: string;
  dataDir: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

async function startMasterProcess(port: number): Promise<Master> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-bench-fleet-'));
  const database = PG ? await createTestDatabase() : undefined;
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO, 'packages/cli/src/main.ts'),
      'start',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
    ],
    {
      cwd: REPO,
      env: {
        ...process.env,
        CRAWLDECK_EMBEDDED_NODE: 'false',
        CRAWLDECK_NODE_KEY: KEY,
        CRAWLDECK_ADMIN_PASSWORD: PASSWORD,
        CRAWLDECK_DATABASE_URL: database?.url ?? '',
        CRAWLDECK_LOG_LEVEL: 'error',
        CRAWLDECK_NODE_OFFLINE_SECONDS: '600',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url + '/api/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: PASSWORD }),
      });
      if (r.status === 200) {
        const token = ((await r.json()) as { data: string }).data;
        return {
          url,
          proc,
          token,
          dataDir,
          databaseUrl: database?.url ?? '',
          async stop() {
            proc.kill('SIGTERM');
            await new Promise((r) => proc.once('exit', r));
            await database?.drop();
            rmSync(dataDir, { recursive: true, force: true });
          },
        };
      }
    } catch {
      /* not listening yet */
    }
    if (i > 1200) {
      proc.kill('SIGKILL');
      throw new Error('master did not start within 2 minutes');
    }
    await sleep(100);
  }
}

async function api(m: Master, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(m.url + '/api' + route, {
    method,
    headers: { authorization: m.token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${json.error}`);
  return json;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Runs `fn` with up to `n` calls at a time. */
async function pool(count: number, n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

async function connectFleet(m: Master, size: number): Promise<SimNode[]> {
  const fleet = Array.from(
    { length: size },
    (_, i) =>
      new SimNode({
        master: m.url,
        key: KEY,
        name: `sim-${i}`,
        maxRunners: 4,
        onAssign: (n, t) => {
          n.started(t.taskId);
          n.finished(t.taskId);
        },
      }),
  );
  await pool(size, 100, (i) => fleet[i].connect());
  return fleet;
}

async function heartbeats(m: Master, fleet: SimNode[]) {
  const period = 2000;
  let beats = 0;
  const timers = fleet.map((n, i) =>
    setTimeout(
      () => {
        const t = setInterval(() => {
          n.heartbeat();
          beats++;
        }, period);
        timers.push(t as unknown as NodeJS.Timeout);
      },
      (i * period) / fleet.length,
    ),
  );
  await sleep(period + 500); // every node is beating
  // First heartbeats alone (master CPU per beat), then with GET /nodes every 200 ms (its latency under beats).
  const cpu0 = cpuSeconds(m.proc.pid!);
  const beats0 = beats;
  const t0 = performance.now();
  await sleep((HB_SECONDS * 1000) / 2);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(m.proc.pid!) - cpu0;
  const n = beats - beats0;
  const t1 = performance.now();
  const lat: number[] = [];
  while (performance.now() - t1 < (HB_SECONDS * 1000) / 2) {
    lat.push(await timed(() => api(m, 'GET', '/nodes')));
    await sleep(200);
  }
  for (const t of timers) {
    clearTimeout(t);
    clearInterval(t);
  }
  return {
    beatsPerSec: n / seconds,
    cpuPct: (cpu / seconds) * 100,
    usPerBeat: (cpu / n) * 1e6,
    nodesP50: pct(lat, 50),
    nodesP99: pct(lat, 99),
  };
}

async function dispatch(m: Master, fleet: SimNode[]) {
  const sid = (await api(m, 'PUT', '/spiders', { name: `fleet-${fleet.length}`, cmd: 'echo sim', type: 'customized' }))
    .data._id as string;
  await sleep(1000);
  const cpu0 = cpuSeconds(m.proc.pid!);
  const t0 = performance.now();
  await pool(TASKS, 8, async () => {
    await api(m, 'PUT', '/tasks', { spider_id: sid, run_type: 'random' });
  });
  for (;;) {
    const done = (await api(m, 'GET', `/tasks?spider_id=${sid}&status=finished&page_size=1`)).total as number;
    if (done >= TASKS) break;
    await sleep(100);
  }
  const cpu = cpuSeconds(m.proc.pid!) - cpu0;
  const spread = fleet.map((n) => n.assigned.length).filter((x) => x > 0).length;
  return {
    spiderId: sid,
    msPerTask: (cpu / TASKS) * 1000,
    seconds: (performance.now() - t0) / 1000,
    nodesUsed: spread,
  };
}

/** The four statements a dispatched task needs at least, straight on the store, in this process. */
async function bareDispatch(m: Master, spider: string): Promise<number> {
  const cpu0 = process.cpuUsage();
  const ids = Array.from({ length: TASKS }, (_, i) => `bare${String(i).padStart(20, '0')}`);
  const now = Date.now();
  const insert = `INSERT INTO tasks (id, spider_id, node_id, type, status, run_type, create_ts) VALUES ($1, $2, '000000000000000000000000', 'spider', 'pending', 'random', ${now})`;
  const claim = `UPDATE tasks SET node_id = 'n', assign_ts = ${now} WHERE id = $1 AND status = 'pending' AND assign_ts IS NULL`;
  const start = `UPDATE tasks SET status = 'running', start_ts = ${now} WHERE id = $1 AND status = 'pending'`;
  const finish = `UPDATE tasks SET status = 'finished', finish_ts = ${now} WHERE id = $1`;
  if (PG) {
    const c = new pg.Client({ connectionString: m.databaseUrl });
    await c.connect();
    for (const id of ids) {
      await c.query(insert, [id, spider]);
      for (const q of [claim, start, finish]) await c.query(q, [id]);
    }
    await c.end();
  } else {
    const db = new Database(path.join(m.dataDir, 'crawldeck.db'));
    db.pragma('busy_timeout = 5000');
    const sql = (q: string) => db.prepare(q.replace(/\$\d/g, '?'));
    const [i, c, s, f] = [sql(insert), sql(claim), sql(start), sql(finish)];
    for (const id of ids) {
      i.run(id, spider);
      c.run(id);
      s.run(id);
      f.run(id);
    }
    db.close();
  }
  const u = process.cpuUsage(cpu0);
  return (u.user + u.system) / 1000 / TASKS;
}

/** PostgreSQL log ingest through the node API against the same batches inserted directly. */
async function ingest(m: Master, node: SimNode) {
  const sid = (await api(m, 'PUT', '/spiders', { name: 'ingest', cmd: 'echo sim', type: 'customized' })).data
    ._id as string;
  const tasks: string[] = [];
  const before = node.assigned.length;
  for (let i = 0; i < INGEST_TASKS; i++) {
    await api(m, 'PUT', '/tasks', { spider_id: sid, run_type: 'selected-nodes', node_ids: [node.nodeId] });
  }
  while (node.assigned.length < before + INGEST_TASKS) await sleep(50);
  tasks.push(...node.assigned.slice(before).map((t) => t.taskId));
  const per = Math.floor(INGEST_LINES / INGEST_TASKS);
  const batch = 20_000;
  const lines = Array.from(
    { length: batch },
    (_, i) => `2026-11-23 08:00:00 [spider] INFO: scraped item ${i} from https://example.com/page/${i}`,
  );
  const t0 = performance.now();
  await Promise.all(
    tasks.map(async (t) => {
      for (let from = 0; from < per; from += batch) await node.shipLogs(t, from, lines);
    }),
  );
  const api_s = (performance.now() - t0) / 1000;
  const c = new pg.Client({ connectionString: m.databaseUrl });
  await c.connect();
  await c.query(
    'CREATE TABLE bare_logs (task_id text, line_no int, msg text, is_error int, PRIMARY KEY (task_id, line_no))',
  );
  const t1 = performance.now();
  await Promise.all(
    tasks.map(async (t) => {
      const cc = new pg.Client({ connectionString: m.databaseUrl });
      await cc.connect();
      for (let from = 0; from < per; from += batch) {
        await cc.query('BEGIN');
        await cc.query(
          'INSERT INTO bare_logs SELECT $1, $2::int + x.ord::int, x.m, 0 FROM unnest($3::text[]) WITH ORDINALITY AS x(m, ord)',
          [t, from, lines],
        );
        await cc.query('COMMIT');
      }
      await cc.end();
    }),
  );
  const bare_s = (performance.now() - t1) / 1000;
  await c.end();
  const total = per * tasks.length;
  return { linesPerSec: total / api_s, bareLinesPerSec: total / bare_s };
}

async function main(): Promise<void> {
  const rows: string[] = [];
  let port = Number(process.env.BENCH_PORT ?? 41000);
  for (const size of FLEETS) {
    const m = await startMasterProcess(port++);
    try {
      const fleet = await connectFleet(m, size);
      const hb = await heartbeats(m, fleet);
      const d = await dispatch(m, fleet);
      const bare = await bareDispatch(m, d.spiderId);
      const line = `${PG ? 'postgres' : 'sqlite'} | ${size} nodes | heartbeats ${hb.beatsPerSec.toFixed(0)}/s: master CPU ${hb.cpuPct.toFixed(1)} % (${hb.usPerBeat.toFixed(0)} µs/beat) | GET /nodes p50 ${hb.nodesP50.toFixed(1)} ms p99 ${hb.nodesP99.toFixed(1)} ms | dispatch ${TASKS} tasks: master CPU ${d.msPerTask.toFixed(2)} ms/task (bare SQL ${bare.toFixed(2)} ms/task), ${d.seconds.toFixed(1)} s, ${d.nodesUsed} nodes used`;
      console.log(line);
      rows.push(line);
      if (PG && size === FLEETS[0]) {
        const ing = await ingest(m, fleet[0]);
        const l = `postgres ingest | ${INGEST_TASKS} tasks × ${INGEST_LINES / INGEST_TASKS} lines: ${ing.linesPerSec.toFixed(0)} lines/s through the node API, bare SQL ${ing.bareLinesPerSec.toFixed(0)} lines/s (${(ing.bareLinesPerSec / ing.linesPerSec).toFixed(1)}×)`;
        console.log(l);
        rows.push(l);
      }
      for (const n of fleet) n.close();
    } finally {
      await m.stop();
    }
  }
  console.log('\n' + rows.join('\n'));
}

await main();

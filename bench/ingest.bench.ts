/**
 * Ingest benchmark: a master in its own process (`crawldeck start`, no embedded node) on SQLite and on PostgreSQL;
 * in this process a simulated node (real node protocol, test/support/sim-node.ts) takes BENCH_INGEST_TASKS tasks
 * and ships their spool files with the node's own Shipper (packages/node/src/shipper.ts) over the node API, as a
 * node does: log lines and items, BENCH_INGEST_SIZES lines in all (default 10k, 100k, 1M: growth ×10 and ×100),
 * once with one batch in flight per task (as before) and once with the node's default.
 * The baselines of the same run: exactly the batches the shipper sent, inserted by bare SQL (one statement per
 * batch in a transaction; tasks in parallel on PostgreSQL, one writer on SQLite), and on PostgreSQL sent by one
 * bare COPY per batch in a transaction, as the master does, into copies of the master's own tables (same
 * indexes and foreign keys).
 * Each run checks that the master stored every line exactly once. Run: `node --import tsx bench/ingest.bench.ts`.
 * BENCH_BATCH_BYTES sets the largest batch (default: the node's). Ports from BENCH_PORT (23010) up, data under the OS temp dir.
 * The master's CPU is given for the whole process and for its main thread alone (where SQLite writes run; other
 * threads are the log indexer's and the checkpoints'). BENCH_PROFILE_DIR: a `.cpuprofile` of the master for each
 * run with the node's default of batches in flight (read it with bench/fleet-profile.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import Database from 'better-sqlite3';
import type { ShipBatch } from '@crawldeck/shared';
import { SimNode } from '../packages/server/test/support/sim-node.ts';
import { KEY, api, cpuSeconds, sleep, startMasterProcess, type Master } from './fleet-support.ts';
import { BATCHES_IN_FLIGHT, Shipper } from '../packages/node/src/shipper.ts';
import { MasterHttp } from '../packages/node/src/master-http.ts';
import { copyField } from '../packages/server/src/features/execution/ingest-pg.store.ts';

const SIZES = (process.env.BENCH_INGEST_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const TASKS = Number(process.env.BENCH_INGEST_TASKS ?? 4);
/** Largest batch in bytes; default: the node's. */
const BATCH_BYTES = process.env.BENCH_BATCH_BYTES ? Number(process.env.BENCH_BATCH_BYTES) : undefined;
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
/** What is shipped: log lines, items or both (default). */
const KINDS = (process.env.BENCH_INGEST_KINDS ?? 'logs,items').split(',') as Kind[];
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

type Engine = 'sqlite' | 'postgres';
type Kind = 'logs' | 'items';

/** A line of a spider's output, or one of its items (six fields, one nested). */
function spoolLine(kind: Kind, i: number): string {
  if (kind === 'logs') return `2026-11-23 08:00:00 [spider] INFO: scraped item ${i} from https://example.com/page/${i}`;
  return JSON.stringify({
    n: i,
    title: `Product ${i}`,
    url: `https://example.com/p/${i}`,
    price: (i % 1000) / 10,
    tags: ['a', 'b'],
    seller: { id: i % 97, name: 'shop' },
  });
}

/** Tasks of the simulated node, started: the node API takes their batches. */
async function newTasks(m: Master, sim: SimNode, spiderId: string): Promise<string[]> {
  const before = sim.assigned.length;
  for (let i = 0; i < TASKS; i++)
    await api(m, 'PUT', '/tasks', { spider_id: spiderId, run_type: 'selected-nodes', node_ids: [sim.nodeId] });
  while (sim.assigned.length < before + TASKS) await sleep(20);
  const ids = sim.assigned.slice(before).map((t) => t.taskId);
  for (const id of ids) sim.started(id);
  return ids;
}

interface ShipRun {
  seconds: number;
  masterCpu: number;
  /** CPU seconds of the master's main thread alone. */
  mainCpu: number;
  batches: { taskId: string; batch: ShipBatch }[];
  resent: number;
  /** CPU seconds of this process (the shipping node). */
  nodeCpu: number;
}

/** Ships every task's spool file with the node's Shipper, `depth` batches in flight per task. */
async function shipAll(m: Master, sim: SimNode, kind: Kind, taskIds: string[], per: number, depth: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-bench-spool-'));
  const text = Array.from({ length: per }, (_, i) => spoolLine(kind, i)).join('\n') + '\n';
  const http = new MasterHttp([m.url], KEY, sim.nodeId);
  const run: ShipRun = { seconds: 0, masterCpu: 0, mainCpu: 0, batches: [], resent: 0, nodeCpu: 0 };
  const shippers = taskIds.map((taskId) => {
    const file = path.join(dir, `${taskId}.txt`);
    writeFileSync(file, text);
    const sent = new Set<number>();
    const post = async (batch: ShipBatch) => {
      // Sent again (its predecessor was not stored in time, or a failure): counted, replayed once in bare SQL.
      if (sent.has(batch.from)) run.resent++;
      const ack = await http.ship(kind, taskId, batch);
      if (!sent.has(batch.from) && ack.acked >= batch.from + batch.lines.length) {
        sent.add(batch.from);
        run.batches.push({ taskId, batch });
      }
      return ack;
    };
    return new Shipper(
      file,
      { bytes: 0, lines: 0 },
      post,
      () => undefined,
      () => undefined,
      BATCH_BYTES,
      depth,
    );
  });
  const profile =
    PROFILE_DIR && depth > 1 ? `${PROFILE_DIR}/${kind}-${per * taskIds.length}-${Date.now()}.cpuprofile` : '';
  if (profile) await m.probe({ probe: 'profile-start' });
  await m.probe({ probe: 'reset' });
  const cpu0 = cpuSeconds(m.proc.pid!);
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(shippers.map((s) => s.drain()));
  run.seconds = (performance.now() - t0) / 1000;
  run.masterCpu = cpuSeconds(m.proc.pid!) - cpu0;
  run.mainCpu = (await m.probe<{ sched: { runMs: number } }>({ probe: 'read' })).sched.runMs / 1000;
  if (profile) await m.probe({ probe: 'profile-stop', file: profile });
  const own = process.cpuUsage(own0);
  run.nodeCpu = (own.user + own.system) / 1e6;
  rmSync(dir, { recursive: true, force: true });
  return run;
}

/** Every line stored once: the task's counts through the API. */
async function checkStored(m: Master, kind: Kind, taskIds: string[], per: number): Promise<void> {
  for (const id of taskIds) {
    const t = (await api(m, 'GET', `/tasks/${id}`)).data;
    const got = kind === 'logs' ? t.log_count : t.result_count;
    if (got !== per) throw new Error(`task ${id}: ${got} ${kind} stored, ${per} shipped`);
  }
}

const BARE_PG = {
  logs: 'INSERT INTO bare_logs SELECT $1, $2::int + x.ord::int, x.m, 0 FROM unnest($3::text[]) WITH ORDINALITY AS x(m, ord)',
  items:
    "INSERT INTO bare_results (collection, task_id, spider_id, data, create_ts) SELECT 'results', $1, 'bench', x.d, $2::bigint FROM unnest($3::text[]) AS x(d)",
};
const BARE_SQLITE = {
  logs: 'INSERT INTO bare_logs SELECT ?, ? + key + 1, value, 0 FROM json_each(?)',
  items:
    "INSERT INTO bare_results (collection, task_id, spider_id, data, create_ts) SELECT 'results', ?, 'bench', value, ? FROM json_each(?)",
};
const BARE_TABLES = [
  'CREATE TABLE IF NOT EXISTS bare_logs (task_id text, line_no int, msg text, is_error int, PRIMARY KEY (task_id, line_no))',
  'CREATE TABLE IF NOT EXISTS bare_results (collection text, task_id text, spider_id text, data text, create_ts bigint)',
];

/**
 * PostgreSQL: the bare tables are the master's own (columns, defaults, indexes, and any foreign key to the tasks
 * table the tree has), so a bare row costs the database what a stored one does.
 */
const BARE_PG_TABLES = `
  DROP TABLE IF EXISTS bare_logs; DROP TABLE IF EXISTS bare_results;
  CREATE TABLE bare_logs (LIKE task_logs INCLUDING ALL); CREATE TABLE bare_results (LIKE results INCLUDING ALL);
  DO $$ DECLARE c record; BEGIN
    FOR c IN SELECT conrelid::regclass::text AS t, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE contype = 'f' AND conrelid IN ('task_logs'::regclass, 'results'::regclass) LOOP
      EXECUTE format('ALTER TABLE %I ADD %s', CASE c.t WHEN 'task_logs' THEN 'bare_logs' ELSE 'bare_results' END, c.def);
    END LOOP;
  END $$`;

/** The rows of one batch in COPY's text format, as bare_logs / bare_results take them. */
function bareCopyText(kind: Kind, taskId: string, b: ShipBatch): string {
  const now = Date.now();
  return b.lines
    .map((l, i) =>
      kind === 'logs'
        ? `${taskId}\t${b.from + i + 1}\t${copyField(l)}\t0\n`
        : `results\t${taskId}\tbench\t${copyField(l)}\t${now}\n`,
    )
    .join('');
}

/** Every task's batches by bare SQL, tasks in parallel, one transaction per batch; seconds. */
async function barePg(
  m: Master,
  byTask: Map<string, ShipBatch[]>,
  store: (c: pg.Client, taskId: string, b: ShipBatch) => Promise<unknown>,
) {
  const t0 = performance.now();
  await Promise.all(
    [...byTask].map(async ([taskId, list]) => {
      const c = new pg.Client({ connectionString: m.databaseUrl });
      await c.connect();
      for (const b of list) {
        await c.query('BEGIN');
        await store(c, taskId, b);
        await c.query('COMMIT');
      }
      await c.end();
    }),
  );
  return (performance.now() - t0) / 1000;
}

/**
 * The same batches by bare SQL; seconds: one INSERT … unnest per batch, and on PostgreSQL one COPY per batch too
 * (the escaping of COPY's text format included, as the master does it).
 */
async function bareInsert(engine: Engine, m: Master, kind: Kind, batches: ShipRun['batches']) {
  const byTask = new Map<string, ShipBatch[]>();
  for (const { taskId, batch } of batches) byTask.set(taskId, [...(byTask.get(taskId) ?? []), batch]);
  for (const list of byTask.values()) list.sort((a, b) => a.from - b.from);
  if (engine === 'sqlite') return { insert: bareSqlite(m, kind, byTask), copy: NaN };
  const admin = new pg.Client({ connectionString: m.databaseUrl });
  await admin.connect();
  const reset = () => admin.query(BARE_PG_TABLES);
  await reset();
  const insert = await barePg(m, byTask, (c, taskId, b) =>
    c.query(BARE_PG[kind], [taskId, kind === 'logs' ? b.from : Date.now(), b.lines]),
  );
  await reset();
  const table =
    kind === 'logs'
      ? 'bare_logs (task_id, line_no, msg, is_error)'
      : 'bare_results (collection, task_id, spider_id, data, create_ts)';
  const copy = await barePg(m, byTask, async (c, taskId, b) => {
    const stream = c.query(copyFrom(`COPY ${table} FROM STDIN`));
    stream.end(bareCopyText(kind, taskId, b));
    await finished(stream);
  });
  await admin.query('DROP TABLE bare_logs; DROP TABLE bare_results');
  await admin.end();
  return { insert, copy };
}

function bareSqlite(m: Master, kind: Kind, byTask: Map<string, ShipBatch[]>): number {
  const db = new Database(path.join(m.dataDir, 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  for (const ddl of BARE_TABLES) db.exec(ddl);
  const insert = db.prepare(BARE_SQLITE[kind]);
  const t0 = performance.now();
  for (const [taskId, list] of byTask)
    for (const b of list) {
      const arg = kind === 'logs' ? b.from : Date.now();
      db.transaction(() => insert.run(taskId, arg, JSON.stringify(b.lines)))();
    }
  const seconds = (performance.now() - t0) / 1000;
  db.exec('DROP TABLE bare_logs; DROP TABLE bare_results');
  db.close();
  return seconds;
}

async function measure(engine: Engine, m: Master, sim: SimNode, spiderId: string, kind: Kind, size: number) {
  const per = Math.floor(size / TASKS);
  const rates: number[] = [];
  let resent = 0;
  let last: ShipRun | undefined;
  for (const depth of [1, BATCHES_IN_FLIGHT]) {
    const ids = await newTasks(m, sim, spiderId);
    last = await shipAll(m, sim, kind, ids, per, depth);
    await checkStored(m, kind, ids, per);
    for (const id of ids) sim.finished(id, kind === 'logs' ? per : 0, kind === 'items' ? per : 0);
    rates.push((per * TASKS) / last.seconds);
    resent += last.resent;
  }
  const bare = await bareInsert(engine, m, kind, last!.batches);
  const lines = per * TASKS;
  const [insert, copy] = [lines / bare.insert, lines / bare.copy];
  const avgBatch = lines / last!.batches.length;
  const copyPart =
    engine === 'postgres'
      ? ` | bare COPY ${copy.toFixed(0)}/s (node API at ${(rates[1] / copy).toFixed(2)} of COPY)`
      : '';
  return (
    `${engine} | ${kind} | ${lines} lines (${TASKS} tasks, ≈${avgBatch.toFixed(0)}/batch) | ` +
    `1 in flight ${rates[0].toFixed(0)}/s | ${BATCHES_IN_FLIGHT} in flight ${rates[1].toFixed(0)}/s ` +
    `(${(rates[1] / rates[0]).toFixed(2)}× of 1) | bare INSERT ${insert.toFixed(0)}/s (node API at ` +
    `${(rates[1] / insert).toFixed(2)} of INSERT)${copyPart} | master CPU ${((last!.masterCpu / lines) * 1e6).toFixed(1)} µs/line ` +
    `(main thread ${((last!.mainCpu / lines) * 1e6).toFixed(1)}), node ` +
    `${((last!.nodeCpu / lines) * 1e6).toFixed(1)} µs/line | ` +
    `${resent} batches sent again | load ${os.loadavg()[0].toFixed(1)}`
  );
}

async function main(): Promise<void> {
  const rows: string[] = [];
  let port = Number(process.env.BENCH_PORT ?? 23010);
  for (const engine of ENGINES) {
    const m = await startMasterProcess(port++, engine === 'postgres');
    const sim = new SimNode({ master: m.url, key: KEY, name: 'bench-shipper', maxRunners: 1000 });
    try {
      await sim.connect();
      const spider = (await api(m, 'PUT', '/spiders', { name: 'ingest', cmd: 'echo sim', type: 'customized' })).data;
      for (const size of SIZES)
        for (const kind of KINDS) {
          const row = await measure(engine, m, sim, spider._id as string, kind, size);
          console.log(row);
          rows.push(row);
        }
    } finally {
      sim.close();
      await m.stop();
    }
  }
  console.log('\n' + rows.join('\n'));
}

await main();

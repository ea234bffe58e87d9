/**
 * What a task's writes cost on a big store, with the task indexes before and after the partial indexes
 * (migration 2026112930), against a bare table in the same run.
 *
 * For each size N (BENCH_SIZES, default 1000000,10000000): a store migrated up to the migration before the change
 * ("old") is filled with N finished tasks by bulk SQL (as bench/fleet-seed.ts does: spread over 20 spiders and 500
 * nodes, three a millisecond, one in four made by one of 50 schedules), and a table `bare_tasks` with the same
 * columns and primary key but no other index receives the same N rows. A copy of that store then takes the
 * remaining migrations ("new"; how long they took on N tasks is printed). Rounds then alternate old, new and bare
 * (the order turns each round): BENCH_TASKS tasks (default 1 000, one in four with a schedule) are created and go
 * through their life one statement at a time through the store functions the master uses: `insertTasks`,
 * `claimTask`, `startTask`, `finishTask`. The bare table gets the same rows by a plain INSERT and its status
 * changes by a plain UPDATE by id, through the same query builder. Printed: ms per statement (mean, p50, p90) of
 * each step, over all rounds, and the load average at the start and end of each round.
 *
 * Run: `node --import tsx bench/task-writes.bench.ts` (SQLite; BENCH_PG=1 for PostgreSQL). BENCH_ROUNDS (default
 * 4), BENCH_DATA_DIR (default the system's temporary directory), BENCH_DB_PREFIX (default crawldeck_task_writes),
 * CRAWLDECK_TEST_PG_URL (the PostgreSQL server's admin URL). The seeded files and databases are removed at the end,
 * unless BENCH_KEEP=1 (to read plans on them; remove them by hand afterwards).
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { EMPTY_ID } from '@crawldeck/shared';
import { openStore, type Store } from '../packages/server/src/store/db.ts';
import { columnTypes } from '../packages/server/src/store/migrate.ts';
import { migrations } from '../packages/server/src/store/migrations/index.ts';
import type { DB } from '../packages/server/src/store/schema.ts';
import { insertTasks, pendingTaskRow } from '../packages/server/src/features/tasks/tasks.store.ts';
import { claimTask, finishTask, startTask } from '../packages/server/src/features/execution/task-state.store.ts';
import { adminQuery, pct } from './fleet-support.ts';

const PG = process.env.BENCH_PG === '1';
const SIZES = (process.env.BENCH_SIZES ?? '1000000,10000000').split(',').map(Number);
const TASKS = Number(process.env.BENCH_TASKS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const DATA_DIR = process.env.BENCH_DATA_DIR ?? os.tmpdir();
const DB_PREFIX = process.env.BENCH_DB_PREFIX ?? 'crawldeck_task_writes';
const KEEP = process.env.BENCH_KEEP === '1';
const PG_ADMIN = process.env.CRAWLDECK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The first migration of the change measured: "old" is the store before it. */
const CHANGE = '2026112930';
const SLICE = 100_000;
const SPIDERS = 20;
const NODES = 500;
const SCHEDULES = 50;
const STEPS = ['insert', 'claim', 'start', 'finish'] as const;
type Step = (typeof STEPS)[number];
type Variant = 'old' | 'new' | 'bare';

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const f3 = (n: number) => n.toFixed(3);
const idOf = (prefix: string, i: number) => prefix + i.toString(16).padStart(22, '0');

/** Where a store of this run lives: a data directory (SQLite) or a database URL (PostgreSQL). */
interface Place {
  dataDir: string;
  databaseUrl: string;
  dbName: string;
}

function place(label: string): Place {
  const dbName = `${DB_PREFIX}_${process.pid}_${label}`;
  const url = new URL(PG_ADMIN);
  url.pathname = `/${dbName}`;
  const dataDir = path.join(DATA_DIR, `${DB_PREFIX}_${process.pid}_${label}`);
  return { dataDir, databaseUrl: PG ? url.toString() : '', dbName };
}

const open = (p: Place): Store =>
  openStore({ dataDir: p.dataDir, databaseUrl: p.databaseUrl || undefined, sqliteCache: { cacheMb: 128, mmapMb: 0 } });

/** Runs the migrations whose names `keep` accepts, as the master's own migrator would. */
async function migrate(store: Store, keep: (name: string) => boolean): Promise<void> {
  const t = columnTypes(store.engine);
  const chosen: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(migrations)) if (keep(name)) chosen[name] = { up: (d) => m.up(d, t) };
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => chosen },
    allowUnorderedMigrations: true,
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/** Integers from..to-1 as rows `n`, in the engine's own way. */
const series = (from: number, to: number) =>
  PG
    ? sql.raw(`generate_series(${from}, ${to - 1}) AS s(n)`)
    : sql.raw(`(WITH RECURSIVE s(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM s WHERE n < ${to - 1})
        SELECT n FROM s) AS s`);
const hex = (expr: string, width: number) =>
  sql.raw(PG ? `lpad(to_hex(${expr}), ${width}, '0')` : `printf('%0${width}x', ${expr})`);

/** N finished tasks, three a millisecond, the newest a day old; then the same rows in the bare table. */
async function seed(db: Kysely<DB>, n: number): Promise<void> {
  const base = Date.now() - 24 * 3600_000 - Math.ceil(n / 3);
  for (let a = 0; a < n; a += SLICE) {
    const b = Math.min(n, a + SLICE);
    await sql`INSERT INTO tasks (id, spider_id, node_id, schedule_id, status, run_type, create_ts, start_ts, finish_ts,
        owner_id, assign_ts, log_lines, result_count)
      SELECT 'a0' || ${hex('n', 22)}, 'sp' || ${hex(`n % ${SPIDERS}`, 22)}, 'nd' || ${hex(`n % ${NODES}`, 22)},
        CASE WHEN n % 4 = 0 THEN 'sc' || ${hex(`n % ${SCHEDULES}`, 22)} END, 'finished', 'random',
        ${sql.raw(String(base))} + n / 3, ${sql.raw(String(base))} + n / 3 + 10,
        ${sql.raw(String(base))} + n / 3 + 5000, 'us' || ${hex('n % 10', 22)}, ${sql.raw(String(base))} + n / 3 + 5,
        n % 100, n % 50
      FROM ${series(a, b)}`.execute(db);
  }
  if (PG) {
    await sql`CREATE TABLE bare_tasks (LIKE tasks INCLUDING DEFAULTS)`.execute(db);
    await sql`ALTER TABLE bare_tasks ADD PRIMARY KEY (id)`.execute(db);
  } else {
    const made = await sql<{ sql: string }>`SELECT sql FROM sqlite_schema WHERE name = 'tasks'`.execute(db);
    await sql.raw(made.rows[0].sql.replace('"tasks"', 'bare_tasks')).execute(db);
  }
  await sql`INSERT INTO bare_tasks SELECT * FROM tasks`.execute(db);
  if (PG) await sql`ANALYZE`.execute(db);
}

/** A copy of the seeded old store for the new schema. */
async function copyStore(from: Place, to: Place, store: Store): Promise<void> {
  if (PG) {
    await adminQuery(`CREATE DATABASE ${to.dbName} TEMPLATE ${from.dbName}`);
    return;
  }
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db);
  mkdirSync(to.dataDir, { recursive: true });
  copyFileSync(path.join(from.dataDir, 'crawldeck.db'), path.join(to.dataDir, 'crawldeck.db'));
}

function taskRow(i: number, now: number) {
  return pendingTaskRow({
    spiderId: idOf('sp', i % SPIDERS),
    nodeId: EMPTY_ID,
    runType: 'random',
    cmd: 'python main.py',
    param: '',
    scheduleId: i % 4 === 0 ? idOf('sc', i % SCHEDULES) : null,
    parentId: null,
    ownerId: idOf('us', i % 10),
    createTs: now,
  });
}

/** Times one statement (or store function) in ms. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** One round of BENCH_TASKS task lives on one variant; pushes each statement's ms into `into`. */
async function round(db: Kysely<DB>, variant: Variant, into: Record<Step, number[]>): Promise<void> {
  const now = Date.now();
  const rows = Array.from({ length: TASKS }, (_, i) => taskRow(i, now + i));
  const nodeOf = (i: number) => idOf('nd', i % NODES);
  const bare = db as unknown as Kysely<any>;
  const setStatus = (id: string, set: Record<string, unknown>) =>
    bare.updateTable('bare_tasks').set(set).where('id', '=', id).execute();
  for (const r of rows) {
    into.insert.push(
      await timed(() =>
        variant === 'bare' ? bare.insertInto('bare_tasks').values(r).execute() : insertTasks(db, [r]),
      ),
    );
  }
  for (const [i, r] of rows.entries()) {
    const node = nodeOf(i);
    into.claim.push(
      await timed(() =>
        variant === 'bare' ? setStatus(r.id, { node_id: node, assign_ts: Date.now() }) : claimTask(db, r.id, node),
      ),
    );
  }
  for (const r of rows) {
    const run = { startTs: Date.now(), pid: 4242, cmd: r.cmd };
    into.start.push(
      await timed(() =>
        variant === 'bare'
          ? setStatus(r.id, { status: 'running', start_ts: run.startTs, pid: run.pid, cmd: run.cmd })
          : startTask(db, r.id, run),
      ),
    );
  }
  for (const r of rows) {
    const report = { status: 'finished' as const, exitCode: 0, error: '', finishTs: Date.now() };
    into.finish.push(
      await timed(() =>
        variant === 'bare'
          ? setStatus(r.id, { status: 'finished', exit_code: 0, error: '', finish_ts: report.finishTs })
          : finishTask(db, r.id, report),
      ),
    );
  }
}

async function measureSize(n: number): Promise<void> {
  const oldPlace = place(`old_${n}`);
  const newPlace = place(`new_${n}`);
  const places = [oldPlace, newPlace];
  try {
    if (PG) await adminQuery(`CREATE DATABASE ${oldPlace.dbName}`);
    else mkdirSync(oldPlace.dataDir, { recursive: true });
    const old = open(oldPlace);
    await migrate(old, (name) => name < CHANGE);
    const s0 = performance.now();
    await seed(old.db, n);
    console.log(`N=${n}: seeded in ${((performance.now() - s0) / 1000).toFixed(1)} s (load ${loadavg()})`);
    await old.close();
    const oldAgain = open(oldPlace);
    await copyStore(oldPlace, newPlace, oldAgain);
    const fresh = open(newPlace);
    const m0 = performance.now();
    await migrate(fresh, () => true);
    console.log(`N=${n}: the change's migrations took ${((performance.now() - m0) / 1000).toFixed(1)} s`);
    const stores: Record<Variant, Store> = { old: oldAgain, new: fresh, bare: oldAgain };
    const times = Object.fromEntries(
      (['old', 'new', 'bare'] as Variant[]).map((v) => [v, Object.fromEntries(STEPS.map((s) => [s, [] as number[]]))]),
    ) as Record<Variant, Record<Step, number[]>>;
    const order: Variant[] = ['old', 'new', 'bare'];
    for (let r = 0; r < ROUNDS; r++) {
      for (const v of order) {
        const before = loadavg();
        await round(stores[v].db, v, times[v]);
        console.log(`  round ${r + 1} ${v}: load ${before} -> ${loadavg()}`);
      }
      order.push(order.shift()!);
    }
    console.log(`\n${PG ? 'PostgreSQL' : 'SQLite'}, N=${n}, ${ROUNDS} rounds of ${TASKS} tasks (ms per statement)`);
    console.log('| step   | old mean / p50 / p90    | new mean / p50 / p90    | bare mean / p50 / p90   |');
    for (const s of STEPS) {
      const cell = (v: Variant) =>
        `${f3(mean(times[v][s]))} / ${f3(pct(times[v][s], 50))} / ${f3(pct(times[v][s], 90))}`;
      console.log(`| ${s.padEnd(6)} | ${cell('old')} | ${cell('new')} | ${cell('bare')} |`);
    }
    console.log('');
    await oldAgain.close();
    await fresh.close();
  } finally {
    if (KEEP) console.log(`kept: ${places.map((p) => (PG ? p.dbName : p.dataDir)).join(', ')}`);
    for (const p of KEEP ? [] : places) {
      if (PG) await adminQuery(`DROP DATABASE IF EXISTS ${p.dbName} WITH (FORCE)`);
      else rmSync(p.dataDir, { recursive: true, force: true });
    }
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

for (const n of SIZES) await measureSize(n);

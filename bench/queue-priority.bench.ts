/**
 * What dispatch's read of the queue costs as the queue grows: `queuedTasks` (the highest priority first, then the
 * oldest) on a store holding N pending, unclaimed tasks spread over 5 priorities, half for any node and half made
 * for one of 1 000 nodes (BENCH_PINNED=0: all for any node), with every one of those nodes free.
 *
 * For each size N (BENCH_SIZES, default 1000,10000,100000) a fresh store is migrated to the latest migration,
 * filled by bulk SQL, then asked BENCH_READS times (default 50) for a round of 500 tasks, by the read dispatch makes
 * and, in the same run, by the baseline: the read it replaced (the nodes with tasks made for them by a DISTINCT, then
 * one ordered read of all their tasks). Printed: ms per read (mean, p50, p90) and each size's mean against the first
 * size's, for both.
 *
 * Run: `node --import tsx bench/queue-priority.bench.ts` (SQLite; BENCH_PG=1 and CRAWLDECK_TEST_PG_URL for
 * PostgreSQL). The stores are removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { EMPTY_ID } from '@crawldeck/shared';
import { openStore } from '../packages/server/src/store/db.ts';
import { migrateToLatest } from '../packages/server/src/store/migrate.ts';
import type { DB } from '../packages/server/src/store/schema.ts';
import { queuedTasks } from '../packages/server/src/features/execution/queue.store.ts';
import { adminQuery, pct } from './fleet-support.ts';

const PG = process.env.BENCH_PG === '1';
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const READS = Number(process.env.BENCH_READS ?? 50);
const NODES = 1000;
/** BENCH_PINNED=0 makes every task one for any node (no task made for a given node). */
const PINNED = process.env.BENCH_PINNED !== '0';
const PG_ADMIN = process.env.CRAWLDECK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const nodeId = (i: number) => `nd${i.toString(16).padStart(22, '0')}`;

const series = (n: number) =>
  PG
    ? sql.raw(`generate_series(0, ${n - 1}) AS s(n)`)
    : sql.raw(
        `(WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < ${n - 1}) SELECT n FROM s) AS s`,
      );
const hex = (expr: string) => sql.raw(PG ? `lpad(to_hex(${expr}), 22, '0')` : `printf('%022x', ${expr})`);

/** N pending tasks: priority 1…5 in turn, even ones for any node, odd ones for one of the nodes, one a millisecond. */
async function seed(db: Kysely<DB>, n: number): Promise<void> {
  const base = Date.now() - n;
  await sql`INSERT INTO tasks (id, spider_id, node_id, status, run_type, create_ts, owner_id, priority)
    SELECT 'a0' || ${hex('n')}, 'sp' || ${hex('n % 20')},
      CASE WHEN n % 2 = 0 OR ${sql.raw(PINNED ? 'FALSE' : 'TRUE')} THEN ${EMPTY_ID} ELSE 'nd' || ${hex(`n % ${NODES}`)} END,
      'pending', 'random', ${sql.raw(String(base))} + n, NULL, 1 + n % 5
    FROM ${series(n)}`.execute(db);
}

/** The read dispatch made before: every pinned node by a DISTINCT, then all the free ones' tasks, sorted. */
async function baselineRead(db: Kysely<DB>, free: ReadonlySet<string>, limit: number) {
  const waiting = () => db.selectFrom('tasks').where('status', '=', 'pending').where('assign_ts', 'is', null);
  const page = (q: ReturnType<typeof waiting>) =>
    q
      .select(['id', 'node_id', 'owner_id', 'priority', 'create_ts'])
      .orderBy('priority')
      .orderBy('create_ts')
      .orderBy('id')
      .limit(limit)
      .execute();
  const forAny = await page(waiting().where('node_id', '=', EMPTY_ID));
  const targets = await waiting().select('node_id').distinct().where('node_id', '!=', EMPTY_ID).execute();
  const ids = targets.map((t) => t.node_id).filter((id) => free.has(id));
  const forNodes = ids.length ? await page(waiting().where('node_id', 'in', ids)) : [];
  return [...forAny, ...forNodes]
    .sort((a, b) => a.priority - b.priority || a.create_ts - b.create_ts || (a.id < b.id ? -1 : 1))
    .slice(0, limit);
}

async function measure(n: number): Promise<{ now: number[]; baseline: number[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-queue-bench-'));
  const dbName = `crawldeck_queue_bench_${process.pid}_${n}`;
  let url: string | undefined;
  if (PG) {
    await adminQuery(`CREATE DATABASE ${dbName}`);
    const u = new URL(PG_ADMIN);
    u.pathname = `/${dbName}`;
    url = u.toString();
  }
  const store = openStore({ dataDir: dir, databaseUrl: url });
  try {
    await migrateToLatest(store.db, store.engine);
    await seed(store.db, n);
    if (PG) await sql`ANALYZE tasks`.execute(store.db);
    const free = new Set(Array.from({ length: NODES }, (_, i) => nodeId(i)));
    const now: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < READS; i++) {
      let t0 = performance.now();
      const got = await queuedTasks(store.db, { nodes: free, limit: 500 });
      now.push(performance.now() - t0);
      t0 = performance.now();
      const old = await baselineRead(store.db, free, 500);
      baseline.push(performance.now() - t0);
      if (got.length !== Math.min(500, n) || old.length !== got.length) throw new Error(`read ${got.length} tasks`);
    }
    return { now, baseline };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (PG) await adminQuery(`DROP DATABASE IF EXISTS ${dbName}`);
  }
}

const firsts = { now: 0, baseline: 0 };
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const n of SIZES) {
  const times = await measure(n);
  for (const kind of ['now', 'baseline'] as const) {
    const m = mean(times[kind]);
    firsts[kind] ||= m;
    console.log(
      `${PG ? 'postgres' : 'sqlite'}${PINNED ? '' : ' (all for any node)'} ${kind} N=${n}: mean ${m.toFixed(2)} ms, ` +
        `p50 ${pct(times[kind], 50).toFixed(2)} ms, p90 ${pct(times[kind], 90).toFixed(2)} ms, ` +
        `ratio to N=${SIZES[0]} ${(m / firsts[kind]).toFixed(2)}`,
    );
  }
}

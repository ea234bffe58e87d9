/**
 * Log search benchmark. Run: `node --import tsx bench/logsearch.bench.ts` (BENCH_PG=1 adds PostgreSQL at
 * CRAWLDECK_TEST_PG_URL; BENCH_LOGSEARCH_10M=1 adds the 10M-line size). For each engine and size:
 *  1. Ingest cost: lines/s of `ingestLogs` (the master's own ingest statement, 5 000-line batches) into a store with
 *     the search index, and into the same kind of store with the index dropped.
 *  2. GET /api/tasks/{id}/log?keyword=… on a task of N lines: a rare keyword, a frequent one and a 2-character one,
 *     page 1 and a later page, median of 3; against the bare SQL the master ran before the index (LIKE / ILIKE for
 *     the page plus a count) on the same store in the same run.
 *  3. While a slow search runs, GET /api/version from a second client: its worst and median latency.
 *  4. Deleting the task (its lines go by cascade, and with them their index entries), with and without the index.
 * Prints ratios to the bare SQL and growth ×10 / ×100 across sizes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { newId } from '@crawldeck/shared';
import { startMaster, type RunningMaster } from '../packages/server/src/master.ts';
import { deleteTaskRows, ingestLogs } from '../packages/server/src/features/tasks/tasks.store.ts';
import { createTestDatabase } from '../packages/server/test/harness.ts';
import { insertRow } from '../packages/server/test/seed-rows.ts';

const SIZES = [100_000, 1_000_000, ...(process.env.BENCH_LOGSEARCH_10M === '1' ? [10_000_000] : [])];
const PASSWORD = 'bench-admin';
const BATCH = 5000;
const KEYWORDS = { rare: 'ConnectionRefused', frequent: 'crawled', short: '42' } as const;
let port = Number(process.env.BENCH_PORT ?? 22040);

/** A Scrapy-like line; one in 10 000 is a rare error, about half say "Crawled". */
function line(i: number): string {
  if (i % 10_000 === 5000) return `2026-11-23 10:00:00 [scrapy.core.scraper] ERROR: ConnectionRefusedError at ${i}`;
  if (i % 2 === 0)
    return `2026-11-23 10:00:00 [scrapy.core.engine] DEBUG: Crawled (200) <GET https://example.com/p/${i}>`;
  return `2026-11-23 10:00:00 [scrapy.core.scraper] DEBUG: Scraped from <200 https://example.com/p/${i}> {'n': ${i % 997}}`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => (x < 10 ? x.toFixed(1) : Math.round(x).toString());

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
}

async function api(m: RunningMaster, token: string, route: string): Promise<any> {
  const res = await fetch(m.url + '/api' + route, { headers: { authorization: token } });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${route}: ${res.status} ${json.error}`);
  return json;
}

async function boot(engine: 'sqlite' | 'postgres') {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wt-logsearch-bench-'));
  const db = engine === 'postgres' ? await createTestDatabase() : undefined;
  const m = await startMaster({
    port: port++,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: db?.url ?? '',
    adminPassword: PASSWORD,
    embeddedNode: false,
    logLevel: 'warn',
  });
  const login = await fetch(m.url + '/api/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const token = ((await login.json()) as { data: string }).data;
  const close = async () => {
    await m.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { m, token, url: db?.url, file: path.join(dataDir, 'crawldeck.db'), close };
}

/** Stores `n` lines into a new task through the master's ingest; lines/s. */
async function ingest(m: RunningMaster, n: number): Promise<{ taskId: string; rate: number }> {
  const db = m.store.db;
  const owner = (await db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
  const spiderId = newId();
  const taskId = newId();
  await insertRow(db, 'spiders', { id: spiderId, owner_id: owner });
  await insertRow(db, 'tasks', { id: taskId, spider_id: spiderId, status: 'running' });
  const t0 = performance.now();
  for (let from = 0; from < n; from += BATCH) {
    const lines = Array.from({ length: Math.min(BATCH, n - from) }, (_, i) => line(from + i));
    await ingestLogs(db, m.store.engine, taskId, { from, lines } as never);
  }
  return { taskId, rate: n / ((performance.now() - t0) / 1000) };
}

async function dropIndex(m: RunningMaster): Promise<void> {
  const db = m.store.db;
  if (m.store.engine === 'postgres') await sql`DROP INDEX IF EXISTS task_logs_msg_trgm_idx`.execute(db);
  else
    for (const t of ['task_logs_search_insert', 'task_logs_search_retire'])
      await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
}

/** The query the master ran before the index: a page of LIKE / ILIKE matches plus their count. */
function bareSearch(engine: 'sqlite' | 'postgres', conn: { file: string; url?: string }) {
  const pattern = (k: string) => `%${k}%`;
  if (engine === 'sqlite') {
    const d = new Database(conn.file, { readonly: true });
    const page = d.prepare(
      `SELECT line_no, msg, is_error FROM task_logs WHERE task_id = ? AND msg LIKE ? ESCAPE '\\' ORDER BY line_no LIMIT ? OFFSET ?`,
    );
    const count = d.prepare(`SELECT count(*) n FROM task_logs WHERE task_id = ? AND msg LIKE ? ESCAPE '\\'`);
    return {
      run: async (task: string, k: string, offset: number) => {
        page.all(task, pattern(k), 50, offset);
        return (count.get(task, pattern(k)) as { n: number }).n;
      },
      close: async () => d.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: conn.url, max: 2 });
  return {
    run: async (task: string, k: string, offset: number) => {
      const [, c] = await Promise.all([
        pool.query(
          `SELECT line_no, msg, is_error FROM task_logs WHERE task_id = $1 AND msg ILIKE $2 ORDER BY line_no LIMIT 50 OFFSET $3`,
          [task, pattern(k), offset],
        ),
        pool.query(`SELECT count(*) n FROM task_logs WHERE task_id = $1 AND msg ILIKE $2`, [task, pattern(k)]),
      ]);
      return Number(c.rows[0].n);
    },
    close: () => pool.end(),
  };
}

type Row = { size: number; what: string; api: number; bare: number; total: number; partial: boolean };

async function searches(engine: 'sqlite' | 'postgres', size: number, rows: Row[], ingestRates: string[]) {
  const b = await boot(engine);
  try {
    const { taskId, rate } = await ingest(b.m, size);
    ingestRates.push(`${engine} ${size} lines with index: ${Math.round(rate)} lines/s`);
    if (engine === 'postgres') await sql`ANALYZE task_logs`.execute(b.m.store.db);
    const bare = bareSearch(engine, b);
    for (const [kind, k] of Object.entries(KEYWORDS)) {
      for (const pageNum of [1, 3]) {
        const q = `/tasks/${taskId}/log?keyword=${encodeURIComponent(k)}&page_size=50&page_num=${pageNum}`;
        const apiTimes: number[] = [];
        const bareTimes: number[] = [];
        let last: any;
        for (let i = 0; i < 3; i++) {
          const [t, r] = await timed(() => api(b.m, b.token, q));
          apiTimes.push(t);
          last = r;
          bareTimes.push((await timed(() => bare.run(taskId, k, (pageNum - 1) * 50)))[0]);
        }
        rows.push({
          size,
          what: `${kind} "${k}" page ${pageNum}`,
          api: median(apiTimes),
          bare: median(bareTimes),
          total: last.total,
          partial: !!last.total_partial,
        });
      }
    }
    await bare.close();
    // A slow search (the 2-character keyword reads every line; the frequent one counts half of them) and a second client.
    const slow = api(b.m, b.token, `/tasks/${taskId}/log?keyword=${KEYWORDS.short}&page_size=50&page_num=2000`);
    let done = false;
    void slow.finally(() => (done = true));
    const lat: number[] = [];
    while (!done) lat.push((await timed(() => api(b.m, b.token, '/version')))[0]);
    rows.push({
      size,
      what: `GET /api/version during a search: ${lat.length} calls, p50 ${ms(median(lat))} ms, max ${ms(Math.max(...lat))} ms`,
      api: Math.max(...lat),
      bare: 0,
      total: 0,
      partial: false,
    });
    const [del] = await timed(() => deleteTaskRows(b.m.store.db, [taskId]));
    ingestRates.push(`${engine} ${size} lines with index: task deleted in ${ms(del)} ms`);
  } finally {
    await b.close();
  }
}

async function ingestWithout(engine: 'sqlite' | 'postgres', size: number, out: string[]) {
  const b = await boot(engine);
  try {
    await dropIndex(b.m);
    const { taskId, rate } = await ingest(b.m, size);
    out.push(`${engine} ${size} lines without index: ${Math.round(rate)} lines/s`);
    const [del] = await timed(() => deleteTaskRows(b.m.store.db, [taskId]));
    out.push(`${engine} ${size} lines without index: task deleted in ${ms(del)} ms`);
  } finally {
    await b.close();
  }
}

async function main() {
  const engines: ('sqlite' | 'postgres')[] = ['sqlite', ...(process.env.BENCH_PG === '1' ? ['postgres' as const] : [])];
  for (const engine of engines) {
    const rows: Row[] = [];
    const ingestRates: string[] = [];
    await ingestWithout(engine, SIZES[0], ingestRates);
    for (const size of SIZES) await searches(engine, size, rows, ingestRates);
    console.log(`\n== ${engine} ==`);
    for (const r of ingestRates) console.log('ingest', r);
    console.log('size | search | API ms | bare SQL ms | API/bare | total | partial');
    for (const r of rows) {
      if (!r.bare) console.log(`${r.size} | ${r.what}`);
      else
        console.log(
          `${r.size} | ${r.what} | ${ms(r.api)} | ${ms(r.bare)} | ${(r.api / r.bare).toFixed(2)} | ${r.total} | ${r.partial}`,
        );
    }
    console.log('growth of the API time against the smallest size:');
    for (const r of rows.filter((x) => x.size !== SIZES[0] && x.bare)) {
      const base = rows.find((x) => x.size === SIZES[0] && x.what === r.what)!;
      console.log(
        `  ${r.what} x${r.size / SIZES[0]} lines: API x${(r.api / base.api).toFixed(2)}, bare SQL x${(r.bare / base.bare).toFixed(2)}`,
      );
    }
  }
}

await main();

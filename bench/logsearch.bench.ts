/**
 * Log search benchmark. Run: `node --import tsx bench/logsearch.bench.ts` (BENCH_PG=1 adds PostgreSQL at
 * CRAWLDECK_TEST_PG_URL, BENCH_SQLITE=0 leaves SQLite out; the test rows' helper reads its engine from
 * CRAWLDECK_TEST_STORE, so PostgreSQL runs alone with CRAWLDECK_TEST_STORE=postgres BENCH_SQLITE=0 BENCH_PG=1;
 * BENCH_LOGSEARCH_10M=1 adds the 10M-line size, BENCH_LOGSEARCH_SIZES=100000,… runs those sizes,
 * BENCH_LOGSEARCH_INGEST=0 leaves step 6 out). For each engine and size, on a task of N lines (a 10M-line task:
 * bare scans once, no half-indexed set, the indexer's last 500 000):
 *  1. Ingest: lines/s of `ingestLogs` (the master's own ingest statement, 5 000-line batches), background indexer off.
 *  2. GET /api/tasks/{id}/log?keyword=…: a rare keyword (1 line in 10 000, so its matches grow with the log), a
 *     needle (10 lines at every size), a frequent one and a 2-character one, page 1 and page 3,
 *     median of 3, against the bare SQL of a plain scan (LIKE / ILIKE for the page plus a count) on the same store
 *     in the same run; on SQLite on a log not indexed, half indexed (directly, as the indexer does) and indexed.
 *  3. SQLite: the master restarts on the same store with its background indexer, which indexes the second half;
 *     GET /api/version from a second client meanwhile (p50, p99, max), and as a baseline once the indexer is idle.
 *  4. GET /api/version while a slow search runs.
 *  5. SQLite: the task deleted, then the indexer's removal of its entries, GET /api/version meanwhile.
 *  6. Up to 1M lines: the ingest with the background indexer running, and its catch-up after it.
 * On PostgreSQL steps 2 and 4 run on the log read line by line, then step 2 again once the chunk indexer's rounds
 * (run directly, back to back) have indexed it.
 * Prints ratios to the baselines and growth ×10 / ×100 across sizes.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { newId } from '@crawldeck/shared';
import { startMaster, type RunningMaster } from '../packages/server/src/master.ts';
import { deleteTaskRows } from '../packages/server/src/features/tasks/tasks.store.ts';
import { ingestLogs } from '../packages/server/src/features/execution/ingest.store.ts';
import { indexNextLines, openLogIndexWriter } from '../packages/server/src/features/tasks/log-index.store.ts';
import {
  CHUNK_LINES,
  chunkedThrough,
  indexNextChunks,
} from '../packages/server/src/features/tasks/log-chunks.store.ts';
import { logIndexFile } from '../packages/server/src/features/tasks/log-index-file.store.ts';
import { PG_ADMIN_URL } from '../packages/server/test/harness.ts';
import { insertRow } from '../packages/server/test/seed-rows.ts';

const SIZES = process.env.BENCH_LOGSEARCH_SIZES
  ? process.env.BENCH_LOGSEARCH_SIZES.split(',').map(Number)
  : [100_000, 1_000_000, ...(process.env.BENCH_LOGSEARCH_10M === '1' ? [10_000_000] : [])];
/** From this size on a bare scan takes tens of seconds: it runs once per search, and no half-indexed set is run. */
const HUGE = 10_000_000;
const PASSWORD = 'bench-admin';
const BATCH = 5000;
const KEYWORDS = { rare: 'ConnectionRefused', needle: 'NeedleInLog', frequent: 'crawled', short: '42' } as const;
let port = Number(process.env.BENCH_PORT ?? 22040);

/**
 * A Scrapy-like line; one in 10 000 is a rare error, about half say "Crawled"; ten lines of the first 100 000 hold
 * the needle, so it has 10 matches at every size.
 */
function line(i: number): string {
  if (i < 100_000 && i % 9973 === 4242) return `2026-11-23 10:00:00 [scrapy.core.engine] WARNING: NeedleInLog at ${i}`;
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
  const call = () => fetch(m.url + '/api' + route, { headers: { authorization: token } });
  // After minutes of indexing on this thread a kept-alive connection may have been closed: one new try.
  const res = await call().catch(call);
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${route}: ${res.status} ${json.error}`);
  return json;
}

/** A new PostgreSQL database for one master, named from BENCH_DB_PREFIX (default crawldeck_bench), dropped after. */
async function createBenchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${process.env.BENCH_DB_PREFIX ?? 'crawldeck_bench'}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL });
    await c.connect();
    return c.query(q).finally(() => c.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const drop = async () => {
    // The master's pool has ended, its connections may still be closing: FORCE would end them mid-way.
    const open = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = '${name}'`;
    for (let i = 0; i < 40 && (await admin(open)).rows[0].n > 0; i++) await new Promise((r) => setTimeout(r, 50));
    await admin(`DROP DATABASE ${name} WITH (FORCE)`);
  };
  return { url: PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`), drop };
}

/** A master on a new store, or on the store of `dataDir` (then the store stays for `close` of the first master). */
async function boot(
  engine: 'sqlite' | 'postgres',
  indexer: boolean,
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'wt-logsearch-bench-')),
) {
  const db = engine === 'postgres' ? await createBenchDatabase() : undefined;
  const m = await startMaster({
    port: port++,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: db?.url ?? '',
    adminPassword: PASSWORD,
    embeddedNode: false,
    logLevel: 'warn',
    logIndexIdleMs: indexer ? 100 : 0,
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
  return { m, token, url: db?.url, dataDir, file: path.join(dataDir, 'crawldeck.db'), close };
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
    await ingestLogs(m.store, taskId, { from, lines } as never);
  }
  return { taskId, rate: n / ((performance.now() - t0) / 1000) };
}

/** Indexes the task's lines up to `upTo` as the background indexer does (2 000-line chunks); lines/s. */
function indexTo(file: string, taskId: string, upTo: number): number {
  const conn = openLogIndexWriter(file);
  const t0 = performance.now();
  let n = 0;
  for (let done; (done = indexNextLines(conn, taskId, 2000, upTo)) > 0;) n += done;
  conn.close();
  return n / ((performance.now() - t0) / 1000);
}

/** How far the indexer got in the task, read from the index file. */
function indexedLine(ix: Database.Database, taskId: string): number {
  const row = ix.prepare('SELECT indexed_line AS n FROM task_log_search WHERE task_id = ?').get(taskId);
  return (row as { n: number } | undefined)?.n ?? 0;
}

const mb = (file: string) => `${Math.round(statSync(file).size / 1e6)} MB`;

/** GET /api/version from a second client until `done()`: the count, median, 99th percentile and worst latency. */
async function versionWhile(b: { m: RunningMaster; token: string }, done: () => boolean | Promise<boolean>) {
  const lat: number[] = [];
  while (!(await done())) lat.push((await timed(() => api(b.m, b.token, '/version')))[0]);
  if (!lat.length) return 'no call';
  const sorted = [...lat].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
  const slow = lat.filter((x) => x > 100).length;
  return `${lat.length} calls, p50 ${ms(median(lat))} ms, p99 ${ms(p99)} ms, max ${ms(sorted[sorted.length - 1])} ms, ${slow} over 100 ms`;
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
type Booted = Awaited<ReturnType<typeof boot>>;

/** The keyword searches on one task, each against the bare scan, labelled with the state of the index. */
async function searchSet(
  engine: 'sqlite' | 'postgres',
  b: Booted,
  taskId: string,
  size: number,
  label: string,
  rows: Row[],
) {
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
        if (i === 0 || size < HUGE) bareTimes.push((await timed(() => bare.run(taskId, k, (pageNum - 1) * 50)))[0]);
      }
      const what = `${label}: ${kind} "${k}" page ${pageNum}`;
      const row = {
        size,
        what,
        api: median(apiTimes),
        bare: median(bareTimes),
        total: last.total,
        partial: !!last.total_partial,
      };
      rows.push(row);
      console.log(`row: ${Object.values(row).join(' | ')}`);
    }
  }
  await bare.close();
}

/** A slow search (the 2-character keyword reads every line) and GET /api/version from a second client meanwhile. */
async function versionDuringSearch(b: Booted, taskId: string): Promise<string> {
  let done = false;
  const slow = api(b.m, b.token, `/tasks/${taskId}/log?keyword=${KEYWORDS.short}&page_size=50&page_num=2000`);
  void slow.finally(() => (done = true));
  return versionWhile(b, () => done);
}

/** Whether the indexer has removed everything of the task: its progress gone and no removal queued. */
function purged(ix: Database.Database, taskId: string): boolean {
  const queued = ix.prepare('SELECT count(*) AS n FROM task_log_purge').get() as { n: number };
  return queued.n === 0 && indexedLine(ix, taskId) === 0;
}

/**
 * SQLite: searches on a log not indexed and half indexed (directly, as the indexer does); then the master restarts on
 * the same store with its background indexer, which indexes the other half (GET /api/version meanwhile); searches
 * on the indexed log; then the task is deleted and the indexer removes its entries (GET /api/version meanwhile).
 */
async function sqliteSearches(size: number, rows: Row[], notes: string[]) {
  const first = await boot('sqlite', false);
  let b = first;
  try {
    const stored = await ingest(b.m, size);
    const taskId = stored.taskId;
    notes.push(`ingest ${size} lines, indexer off: ${Math.round(stored.rate)} lines/s`);
    await searchSet('sqlite', b, taskId, size, 'not indexed', rows);
    // The huge task: all but the last 500 000 lines indexed directly, the rest by the master's indexer.
    const direct = size >= HUGE ? size - 500_000 : size / 2;
    const rate = indexTo(b.file, taskId, direct);
    notes.push(`indexing the first ${direct} lines in 2000-line chunks, alone: ${Math.round(rate)} lines/s`);
    if (size < HUGE) await searchSet('sqlite', b, taskId, size, 'half indexed', rows);
    await first.m.close();
    b = await boot('sqlite', true, first.dataDir);
    const ix = new Database(logIndexFile(b.file), { readonly: true });
    try {
      const t0 = performance.now();
      const during = await versionWhile(b, () => indexedLine(ix, taskId) >= size);
      const s = (performance.now() - t0) / 1000;
      notes.push(
        `${size} lines: the background indexer indexed the other ${size - direct} in ${ms(s)} s (${Math.round((size - direct) / s)} lines/s); GET /api/version meanwhile: ${during}`,
      );
      let calls = 0;
      notes.push(
        `${size} lines: GET /api/version, indexer idle (baseline): ${await versionWhile(b, () => ++calls > 2000)}`,
      );
      notes.push(`${size} lines: store file ${mb(b.file)}, index file ${mb(logIndexFile(b.file))}`);
      await searchSet('sqlite', b, taskId, size, 'indexed', rows);
      notes.push(
        `${size} lines indexed: GET /api/version during a slow search: ${await versionDuringSearch(b, taskId)}`,
      );
      const [del] = await timed(() => deleteTaskRows(b.m.store.db, [taskId]));
      const p0 = performance.now();
      const purging = await versionWhile(b, () => purged(ix, taskId));
      notes.push(
        `${size} lines: task deleted in ${ms(del)} ms; the indexer removed its entries ${ms(performance.now() - p0)} ms later; GET /api/version meanwhile: ${purging}`,
      );
    } finally {
      ix.close();
    }
  } finally {
    // The first master is closed once the second runs; the store goes with whichever runs last.
    await (b !== first ? b : first).close();
  }
}

/** SQLite: ingest while the background indexer runs, then its catch-up and GET /api/version meanwhile. */
async function sqliteIngestWithIndexer(size: number, notes: string[]) {
  const b = await boot('sqlite', true);
  try {
    const { taskId, rate } = await ingest(b.m, size);
    notes.push(`ingest ${size} lines, indexer running: ${Math.round(rate)} lines/s`);
    const t0 = performance.now();
    const ix = new Database(logIndexFile(b.file), { readonly: true });
    const during = await versionWhile(b, () => indexedLine(ix, taskId) >= size);
    ix.close();
    notes.push(
      `${size} lines: indexer caught up ${ms((performance.now() - t0) / 1000)} s after the ingest; GET /api/version meanwhile: ${during}`,
    );
    let calls = 0;
    const idle = await versionWhile(b, () => ++calls > 2000);
    notes.push(`${size} lines: GET /api/version with the indexer idle (baseline): ${idle}`);
  } finally {
    await b.close();
  }
}

/** PostgreSQL: indexer rounds run directly until no task is behind (the background indexer rests between them). */
async function indexChunks(m: RunningMaster): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  for (;;) {
    const round = await indexNextChunks(m.store.db, 64 * CHUNK_LINES);
    if (round.kind === 'idle') break;
    if (round.kind === 'indexed') n += round.lines;
  }
  return n / ((performance.now() - t0) / 1000);
}

const pgSize = async (m: RunningMaster, table: string) =>
  (await sql<{ s: string }>`SELECT pg_size_pretty(pg_total_relation_size(${table})) AS s`.execute(m.store.db)).rows[0]
    .s;

/**
 * PostgreSQL: searches on the log read line by line, then after the chunk indexer's rounds ran (directly, back to
 * back) over the whole log.
 */
async function postgresSearches(size: number, rows: Row[], notes: string[]) {
  const b = await boot('postgres', false);
  try {
    const { taskId, rate } = await ingest(b.m, size);
    notes.push(`ingest ${size} lines, indexer off: ${Math.round(rate)} lines/s`);
    await sql`ANALYZE task_logs`.execute(b.m.store.db);
    await searchSet('postgres', b, taskId, size, 'not indexed', rows);
    notes.push(`${size} lines: GET /api/version during a slow search: ${await versionDuringSearch(b, taskId)}`);
    const indexRate = await indexChunks(b.m);
    notes.push(
      `${size} lines: chunk indexer rounds back to back: ${Math.round(indexRate)} lines/s; task_logs ${await pgSize(b.m, 'task_logs')}, task_log_chunks with its index ${await pgSize(b.m, 'task_log_chunks')}`,
    );
    await sql`ANALYZE task_log_chunks`.execute(b.m.store.db);
    await searchSet('postgres', b, taskId, size, 'indexed', rows);
  } finally {
    await b.close();
  }
}

/** PostgreSQL: ingest while the background chunk indexer runs, then its catch-up and GET /api/version meanwhile. */
async function postgresIngestWithIndexer(size: number, notes: string[]) {
  const b = await boot('postgres', true);
  try {
    const { taskId, rate } = await ingest(b.m, size);
    notes.push(`ingest ${size} lines, chunk indexer running: ${Math.round(rate)} lines/s`);
    const t0 = performance.now();
    const whole = Math.floor(size / CHUNK_LINES) * CHUNK_LINES;
    const during = await versionWhile(b, async () => (await chunkedThrough(b.m.store.db, taskId)) >= whole);
    notes.push(
      `${size} lines: chunk indexer caught up ${ms((performance.now() - t0) / 1000)} s after the ingest; GET /api/version meanwhile: ${during}`,
    );
  } finally {
    await b.close();
  }
}

function print(engine: string, rows: Row[], notes: string[]) {
  console.log(`\n== ${engine} ==`);
  for (const r of notes) console.log(r);
  console.log('size | search | API ms | bare SQL ms | API/bare | total | partial');
  for (const r of rows)
    console.log(
      `${r.size} | ${r.what} | ${ms(r.api)} | ${ms(r.bare)} | ${(r.api / r.bare).toFixed(2)} | ${r.total} | ${r.partial}`,
    );
  console.log('growth of the API time against the smallest size:');
  for (const r of rows.filter((x) => x.size !== SIZES[0])) {
    const base = rows.find((x) => x.size === SIZES[0] && x.what === r.what)!;
    console.log(
      `  ${r.what} x${r.size / SIZES[0]} lines: API x${(r.api / base.api).toFixed(2)}, bare SQL x${(r.bare / base.bare).toFixed(2)}`,
    );
  }
}

/** Notes are printed as they come too, so a long run shows its progress. */
function noteList(): string[] {
  const notes: string[] = [];
  const push = notes.push.bind(notes);
  notes.push = (...xs: string[]) => {
    for (const x of xs) console.log(`[${new Date().toISOString().slice(11, 19)}] ${x}`);
    return push(...xs);
  };
  return notes;
}

async function main() {
  const rows: Row[] = [];
  const notes = noteList();
  for (const size of process.env.BENCH_SQLITE === '0' ? [] : SIZES) {
    await sqliteSearches(size, rows, notes);
    // The ingest with the indexer running, up to 1M lines (the 10M-line task is ingested once, above).
    if (size <= 1_000_000 && process.env.BENCH_LOGSEARCH_INGEST !== '0') await sqliteIngestWithIndexer(size, notes);
  }
  if (rows.length) print('sqlite', rows, notes);
  if (process.env.BENCH_PG !== '1') return;
  const pgRows: Row[] = [];
  const pgNotes = noteList();
  for (const size of SIZES) {
    await postgresSearches(size, pgRows, pgNotes);
    if (size <= 1_000_000 && process.env.BENCH_LOGSEARCH_INGEST !== '0') await postgresIngestWithIndexer(size, pgNotes);
  }
  print('postgres', pgRows, pgNotes);
}

await main();

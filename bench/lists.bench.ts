/**
 * Lists and exports as data grows. Run: `node --import tsx bench/lists.bench.ts` (SQLite); BENCH_PG=1 runs on
 * PostgreSQL instead (a database of its own at CRAWLDECK_TEST_PG_URL's server, dropped afterwards). Sizes 10k /
 * 100k / 1M tasks (and as many items of one task); BENCH_10M=1 adds 10M. Rows go straight into the store (bulk SQL);
 * every timing is over real HTTP against a master in this process, the fastest of BENCH_REPEAT calls (the machine is
 * shared: the minimum is the cost of the work, the median mostly the neighbours' load):
 *   GET /tasks first page, middle page (by cursor), page_num 1000 (the deepest page a number reaches), last page
 *   (by the `last` cursor), as the administrator and as a normal user (task policy filter), and the `next` page;
 *   CSV and JSON export of the task's items (fastest, median and slowest call, and the master's CPU time per call:
 *   this process's, as curl and psql are processes of their own) and the longest wait of GET /api/version sampled
 *   every 20 ms meanwhile (how long any other request waits behind an export). BENCH_EXPORTS_ONLY=1 inserts only the items and
 *   times only the exports; BENCH_EXPORT_REPEAT sets their calls. BENCH_DATA_DIR and BENCH_DB_PREFIX place the
 *   bench's data directory and name its database.
 * Baselines in the same run: a bare keyset SELECT of one page on the store's own driver, and a bare export of the
 * items' column by the engine's command-line client (`COPY … TO STDOUT` by psql, `sqlite3 -csv`); the export through
 * the API is downloaded by curl, a separate process as those clients are.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { startMaster, type RunningMaster } from '../packages/server/src/master.ts';
import { encodeCursor } from '../packages/server/src/http/cursor.ts';
import { versionProbe } from './version-probe.ts';

const PG = process.env.BENCH_PG === '1';
// The test helpers (the one that fills a row's other required columns, and the harness the bench support uses) read
// the engine from the test environment when they load: they are loaded after it is set.
if (PG) process.env.CRAWLDECK_TEST_STORE = 'postgres';
const { insertRow } = await import('../packages/server/test/seed-rows.ts');
const { BENCH_PASSWORD, addUser, signIn } = await import('./support.ts');
const PG_ADMIN = process.env.CRAWLDECK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SIZES = process.env.BENCH_SIZES
  ? process.env.BENCH_SIZES.split(',').map(Number)
  : [10_000, 100_000, 1_000_000, ...(process.env.BENCH_10M === '1' ? [10_000_000] : [])];
const REPEAT = Number(process.env.BENCH_REPEAT ?? 15);
/** Exports only (the list pages skipped), each timed BENCH_EXPORT_REPEAT times (default: 5 at 1M, fewer above). */
const EXPORTS_ONLY = process.env.BENCH_EXPORTS_ONLY === '1';
const EXPORT_REPEAT = process.env.BENCH_EXPORT_REPEAT ? Number(process.env.BENCH_EXPORT_REPEAT) : undefined;
const PORT = Number(process.env.BENCH_PORT ?? 21040);
const DATA = `${process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'crawldeck-lists-bench')}/bench-${process.pid}`;
const DB_PREFIX = process.env.BENCH_DB_PREFIX ?? 'crawldeck_lists_bench';
const SPIDERS = 20;
const PUBLIC_SPIDERS = 5;
const BASE_TS = 1_700_000_000_000;
const CSV_TASK = 'f'.repeat(24);
const run = promisify(execFile);

const hexId = (n: number) => n.toString(16).padStart(24, '0');
const spiderId = (k: number) => hexId(0xf00000 + k);

async function timed(fn: () => Promise<unknown>, repeat = REPEAT): Promise<number> {
  return (await spread(fn, repeat)).min;
}

/**
 * Fastest, median and slowest of `repeat` calls after one warm-up, in ms, and the fewest ms of CPU this process
 * (the master) spent on one call: on a shared machine the CPU time is the work, the wall time also the neighbours.
 */
async function spread(fn: () => Promise<unknown>, repeat = REPEAT) {
  await fn();
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  ms.sort((a, b) => a - b);
  return { min: ms[0], median: ms[Math.floor(ms.length / 2)], max: ms[ms.length - 1], cpu: Math.min(...cpu) };
}

async function getJson(m: RunningMaster, token: string, route: string): Promise<any> {
  const call = () => fetch(m.url + '/api' + route, { headers: { authorization: token } });
  // A kept-alive connection the server closed while rows were being inserted fails once; a new one does not.
  const res = await call().catch(call);
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`GET ${route}: ${res.status} ${body.error}`);
  return body;
}

/** Tasks from..to-1: 20 spiders (5 public), one in ten owned by the normal user, three tasks per millisecond. */
async function insertTasks(db: Kysely<any>, from: number, to: number, admin: string, user: string) {
  if (PG) {
    await sql`INSERT INTO tasks (id, spider_id, node_id, status, run_type, create_ts, owner_id)
      SELECT lpad(to_hex(n), 24, '0'), lpad(to_hex(${0xf00000}::int + n % ${SPIDERS}::int), 24, '0'), ${hexId(0)},
        'finished', 'random', ${BASE_TS}::bigint + n / 3, CASE WHEN n % 10 = 0 THEN ${user} ELSE ${admin} END
      FROM generate_series(${from}::int, ${to - 1}::int) AS n`.execute(db);
    return;
  }
  await sql`WITH RECURSIVE s(n) AS (SELECT CAST(${from} AS INTEGER) UNION ALL SELECT n + 1 FROM s WHERE n < ${to - 1})
    INSERT INTO tasks (id, spider_id, node_id, status, run_type, create_ts, owner_id)
    SELECT printf('%024x', n), printf('%024x', ${0xf00000} + n % ${SPIDERS}), ${hexId(0)}, 'finished', 'random',
      CAST(${BASE_TS} AS INTEGER) + n / 3, CASE WHEN n % 10 = 0 THEN ${user} ELSE ${admin} END FROM s`.execute(db);
}

/** Items from..to-1 of the export task. */
async function insertItems(db: Kysely<any>, from: number, to: number) {
  if (PG) {
    await sql`INSERT INTO results (collection, task_id, spider_id, data, create_ts)
      SELECT 'results_bench', ${CSV_TASK}, ${spiderId(0)},
        json_build_object('n', n, 'title', 'item ' || n, 'url', 'https://example.com/p/' || n)::text, ${BASE_TS}::bigint
      FROM generate_series(${from}::int, ${to - 1}::int) AS n`.execute(db);
    return;
  }
  await sql`WITH RECURSIVE s(n) AS (SELECT CAST(${from} AS INTEGER) UNION ALL SELECT n + 1 FROM s WHERE n < ${to - 1})
    INSERT INTO results (collection, task_id, spider_id, data, create_ts)
    SELECT 'results_bench', ${CSV_TASK}, ${spiderId(0)},
      json_object('n', n, 'title', 'item ' || n, 'url', 'https://example.com/p/' || n), ${BASE_TS} FROM s`.execute(db);
}

/** Inserts in slices of 100k rows (one statement each), so 10M rows do not build one huge statement. */
async function topUp(db: Kysely<any>, have: number, want: number, insert: (a: number, b: number) => Promise<void>) {
  for (let a = have; a < want; a += 100_000) await insert(a, Math.min(want, a + 100_000));
}

interface Bare {
  page(key: [number, string]): Promise<unknown>;
  exportItems(): Promise<unknown>;
  close(): Promise<void>;
}

const BARE_PAGE = `SELECT * FROM tasks WHERE create_ts <= $1 AND (create_ts < $1 OR id < $2)
  ORDER BY create_ts DESC, id DESC LIMIT 10`;
const BARE_EXPORT = `SELECT data FROM results WHERE task_id = '${CSV_TASK}' ORDER BY id`;

async function bareBaseline(file: string, url: string): Promise<Bare> {
  if (PG) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      page: (key) => client.query(BARE_PAGE, key),
      exportItems: () => run('sh', ['-c', `psql "${url}" -qAt -c "COPY (${BARE_EXPORT}) TO STDOUT CSV" >/dev/null`]),
      close: () => client.end(),
    };
  }
  const conn = new Database(file, { readonly: true });
  const stmt = conn.prepare(BARE_PAGE.replaceAll('$1', '@ts').replace('$2', '@id'));
  return {
    page: async ([ts, id]) => stmt.all({ ts, id }),
    exportItems: () => run('sh', ['-c', `sqlite3 -csv "${file}" "${BARE_EXPORT}" >/dev/null`]),
    close: async () => void conn.close(),
  };
}

async function middleKey(db: Kysely<any>, size: number): Promise<[number, string]> {
  const r = await sql<{ create_ts: number; id: string }>`SELECT create_ts, id FROM tasks
    ORDER BY create_ts DESC, id DESC LIMIT 1 OFFSET ${Math.floor(size / 2)}`.execute(db);
  return [Number(r.rows[0].create_ts), r.rows[0].id];
}

/** An export as a separate client downloads it (curl, like psql for the bare export), to /dev/null. */
function download(m: RunningMaster, token: string, format: 'csv' | 'json'): Promise<unknown> {
  const url = `${m.url}/api/tasks/${CSV_TASK}/results/download?format=${format}`;
  return run('curl', ['-sf', '-o', '/dev/null', '-H', `authorization: ${token}`, url]);
}

type Row = Record<string, number>;

async function measure(m: RunningMaster, bare: Bare, size: number, admin: string, user: string): Promise<Row> {
  const row: Row = {};
  if (!EXPORTS_ONLY) await measurePages(m, bare, size, admin, user, row);
  const exports = EXPORT_REPEAT ?? Math.max(1, Math.min(5, Math.round(1_000_000 / size)));
  const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const load0 = load();
  const b = await spread(() => bare.exportItems(), exports);
  Object.assign(row, { bare_copy: b.min, bare_copy_median: b.median, bare_copy_max: b.max });
  for (const format of ['csv', 'json'] as const) {
    // Every other request's longest wait while the exports run: GET /api/version from a thread of its own.
    const probe = versionProbe({ url: m.url } as Parameters<typeof versionProbe>[0], 20);
    const d = await spread(() => download(m, admin, format), exports);
    Object.assign(row, { [format]: d.min, [`${format}_median`]: d.median, [`${format}_max`]: d.max });
    row[`${format}_master_cpu`] = d.cpu;
    row[`${format}_other_request_max_wait`] = Math.max(...(await probe.stop()));
  }
  row.load_before = load0;
  row.load_after = load();
  return row;
}

/** The list pages, each against the bare keyset page of the same size. */
async function measurePages(m: RunningMaster, bare: Bare, size: number, admin: string, user: string, row: Row) {
  const db = m.store.db as Kysely<any>;
  const mid = await middleKey(db, size);
  const midCursor = encodeCursor({ dir: 'after', key: mid });
  const last = encodeCursor({ dir: 'last' });
  const first = await getJson(m, admin, '/tasks?page_size=10');
  row.bare_page = await timed(() => bare.page(mid));
  for (const [who, token] of [
    ['admin', admin],
    ['user', user],
  ] as const) {
    row[`${who}_first`] = await timed(() => getJson(m, token, '/tasks?page_size=10'));
    row[`${who}_middle`] = await timed(() => getJson(m, token, `/tasks?page_size=10&cursor=${midCursor}`));
    row[`${who}_page1000`] = await timed(() => getJson(m, token, '/tasks?page_size=10&page_num=1000'));
    row[`${who}_last`] = await timed(() => getJson(m, token, `/tasks?page_size=10&cursor=${last}`));
  }
  row.admin_next = await timed(() => getJson(m, admin, `/tasks?page_size=10&cursor=${first.next}`));
}

function report(rows: Map<number, Row>): void {
  const sizes = [...rows.keys()];
  const base = rows.get(sizes[0])!;
  const names = Object.keys(base);
  const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(2));
  console.log(`\n| ms | ${sizes.map((s) => s.toLocaleString('en')).join(' | ')} | growth x10 | growth x100 |`);
  console.log(`|---|${sizes.map(() => '---').join('|')}|---|---|`);
  for (const name of names) {
    const cells = sizes.map((s) => {
      const r = rows.get(s)!;
      const exported = /^(csv|json)/.test(name) && !name.endsWith('cpu');
      const against = exported ? r.bare_copy : /^(bare|load)|cpu$/.test(name) ? undefined : r.bare_page;
      return fmt(r[name]) + (against ? ` (${(r[name] / against).toFixed(1)}x)` : '');
    });
    const growth = (n: number) => (rows.get(n) ? (rows.get(n)![name] / base[name]).toFixed(2) : '-');
    console.log(`| ${name} | ${cells.join(' | ')} | ${growth(100_000)} | ${growth(1_000_000)} |`);
  }
}

async function main(): Promise<void> {
  rmSync(DATA, { recursive: true, force: true });
  mkdirSync(DATA, { recursive: true });
  const dbName = `${DB_PREFIX}_${process.pid}`;
  const pgAdmin = PG ? new pg.Client({ connectionString: PG_ADMIN }) : undefined;
  await pgAdmin?.connect();
  await pgAdmin?.query(`CREATE DATABASE ${dbName}`);
  const url = PG ? PG_ADMIN.replace(/\/[^/]*$/, `/${dbName}`) : '';
  const m = await startMaster({
    port: PORT,
    host: '127.0.0.1',
    dataDir: DATA,
    databaseUrl: url,
    adminPassword: BENCH_PASSWORD,
    embeddedNode: false,
    logLevel: 'warn',
  });
  const rows = new Map<number, Row>();
  try {
    const admin = await signIn(m, 'admin', BENCH_PASSWORD);
    const { id: userId, token: user } = await addUser(m, admin, 'bench-user', 'bench-user-pass');
    const adminId = ((await getJson(m, admin, '/me')) as { data: { _id: string } }).data._id;
    const db = m.store.db as Kysely<any>;
    for (let k = 0; k < SPIDERS; k++)
      await insertRow(db, 'spiders', { id: spiderId(k), owner_id: adminId, is_public: k < PUBLIC_SPIDERS ? 1 : 0 });
    await insertRow(db, 'tasks', {
      id: CSV_TASK,
      spider_id: spiderId(0),
      node_id: hexId(0),
      status: 'finished',
      run_type: 'random',
      create_ts: BASE_TS - 1,
      owner_id: adminId,
    });
    const bare = await bareBaseline(path.join(DATA, 'crawldeck.db'), url);
    let have = 0;
    console.log(`# lists.bench on ${PG ? 'postgres' : 'sqlite'}`);
    for (const size of SIZES) {
      const t0 = Date.now();
      if (!EXPORTS_ONLY) await topUp(db, have, size, (a, b) => insertTasks(db, a, b, adminId, userId));
      await topUp(db, have, size, (a, b) => insertItems(db, a, b));
      // What autovacuum / a periodic ANALYZE does on a live store: fresh statistics and visibility.
      await sql.raw(PG ? 'VACUUM ANALYZE' : 'ANALYZE').execute(db);
      console.log(`${size.toLocaleString('en')} tasks + items inserted in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      have = size;
      rows.set(size, await measure(m, bare, size, admin, user));
      console.log(JSON.stringify(rows.get(size)));
    }
    await bare.close();
    report(rows);
  } finally {
    await m.close();
    if (pgAdmin) {
      await pgAdmin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await pgAdmin.end();
    }
    rmSync(DATA, { recursive: true, force: true });
  }
}

await main();

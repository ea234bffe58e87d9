/**
 * The dashboard's numbers as the task store grows. Run: `node --import tsx bench/home-stats.bench.ts` (SQLite);
 * BENCH_PG=1 runs on PostgreSQL (a database of its own, dropped afterwards). Sizes 10k / 100k / 1M tasks, all
 * created within the dashboard's 30 days (the worst case: every task is in the daily series); BENCH_10M=1 adds 10M.
 * Rows go straight into the store (bulk SQL, through the triggers that keep the counts).
 *
 * For each size: GET /api/stats/home over real HTTP (fastest and slowest of BENCH_REPEAT calls), the longest wait of
 * GET /api/version sampled every 20 ms from a thread of its own while those calls run (how long any other request
 * waits behind the dashboard), and the same-run baseline: the daily series counted the plain way, by walking the
 * create_ts index of the month's tasks (what the dashboard did before the store kept per-minute counts).
 */
import { sql } from 'kysely';
import { newId } from '@crawldeck/shared';
import { versionProbe } from './version-probe.ts';

const PG = process.env.BENCH_PG === '1';
if (PG) process.env.CRAWLDECK_TEST_STORE = 'postgres';
const { insertRows, insertRow } = await import('../packages/server/test/seed-rows.ts');
const { api, withMaster } = await import('./support.ts');

const SIZES = process.env.BENCH_SIZES
  ? process.env.BENCH_SIZES.split(',').map(Number)
  : [10_000, 100_000, 1_000_000, ...(process.env.BENCH_10M === '1' ? [10_000_000] : [])];
const REPEAT = Number(process.env.BENCH_REPEAT ?? 10);
const DAY = 86400_000;
const STATUSES = ['finished', 'finished', 'finished', 'error', 'cancelled'];

const ms = (n: number) => `${n.toFixed(1)} ms`;

const master = { engine: PG ? ('postgres' as const) : ('sqlite' as const), scratch: 'crawldeck-home-stats-bench' };
await withMaster({ ...master, embeddedNode: false }, async (m, token) => {
  const db = m.store.db;
  const owner = (await db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow())
    .id;
  const spider = newId();
  await insertRow(db, 'spiders', { id: spider, owner_id: owner });
  const now = Date.now();
  let have = 0;
  const rows: string[] = [];
  console.log(`GET /api/stats/home on ${m.store.engine}, tasks spread over the last 29 days`);
  for (const size of SIZES) {
    for (; have < size; have += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, size - have) }, (_, i) => ({
        id: newId(),
        spider_id: spider,
        node_id: 'n',
        status: STATUSES[(have + i) % 5],
        run_type: 'random',
        create_ts: now - ((have + i) % (29 * 24 * 60)) * 60_000,
      }));
      await insertRows(db, 'tasks', batch, 1000);
    }
    if (PG) await sql`ANALYZE tasks`.execute(db);
    const since = now - 30 * DAY;
    const walk = async () => {
      const t0 = performance.now();
      await sql`SELECT create_ts / ${sql.lit(DAY)} AS d, COUNT(*) AS n FROM tasks
        WHERE create_ts >= ${sql.lit(since)} GROUP BY 1`.execute(db);
      return performance.now() - t0;
    };
    const baseline = Math.min(...(await Promise.all([walk(), walk(), walk()])));
    // Warm-up; the seeding held this process long enough for a kept-alive connection to be closed under the call.
    await api(m, token, 'GET', '/stats/home?tz_offset=480').catch(() => api(m, token, 'GET', '/stats/home'));
    const probe = versionProbe({ url: m.url } as Parameters<typeof versionProbe>[0], 20);
    const times: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      const t0 = performance.now();
      const r = await api(m, token, 'GET', '/stats/home?tz_offset=480');
      times.push(performance.now() - t0);
      if (r.data.tasks !== size) throw new Error(`dashboard counts ${r.data.tasks} tasks of ${size}`);
    }
    const waits = await probe.stop();
    const fastest = Math.min(...times);
    rows.push(
      `${String(size).padStart(10)} tasks: stats/home ${ms(fastest)} (slowest ${ms(Math.max(...times))}), ` +
        `baseline index walk ${ms(baseline)}, ratio ${(fastest / baseline).toFixed(2)}×, ` +
        `longest /api/version wait ${ms(Math.max(...waits))}`,
    );
    console.log(rows.at(-1));
  }
});

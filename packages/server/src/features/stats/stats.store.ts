import { sql } from 'kysely';
import type { Store } from '../../store/db.ts';

const DAY_MS = 86400_000;

/** The spiders being purged (deleted, their tasks still going): their tasks count nowhere. */
const PURGING = sql`SELECT spider_id FROM spider_purges`;

/**
 * Tasks per status, leaving out the tasks of deleted spiders still being purged, in one statement: one snapshot, so
 * a purge round that ends between two reads can neither count a spider's tasks nor take them away twice. On SQLite
 * the store keeps the counts, per status and per spider and status (triggers on the tasks table): counting there
 * would hold the master's only thread for the whole table. On PostgreSQL one GROUP BY over the status index, in the
 * database server while the master goes on, less the purged spiders' tasks counted along their own index.
 */
export async function taskStatusCounts(store: Store): Promise<{ status: string; n: number }[]> {
  const { rows } = await (
    store.engine === 'sqlite'
      ? sql<{ status: string; n: number }>`SELECT c.status, c.n - COALESCE((SELECT SUM(s.n) FROM task_spider_counts s
          WHERE s.status = c.status AND s.spider_id IN (${PURGING})), 0) AS n FROM task_status_counts c`
      : sql<{ status: string; n: number }>`SELECT t.status, t.n - COALESCE(g.n, 0) AS n
          FROM (SELECT status, COUNT(*) AS n FROM tasks GROUP BY status) t
          LEFT JOIN (SELECT status, COUNT(*) AS n FROM tasks WHERE spider_id IN (${PURGING}) GROUP BY status) g
            ON g.status = t.status`
  ).execute(store.db);
  return rows.map((r) => ({ status: r.status, n: Number(r.n) })).filter((r) => r.n > 0);
}

/**
 * Tasks created since `since` per day number (days start `offMs` after UTC midnight), less those of deleted spiders
 * still being purged (through their own (spider_id, create_ts) index); one statement, for the same reason as the
 * counts per status. On SQLite the created tasks come from the per-minute counts the store keeps (triggers on the
 * tasks table): a month is at most 43,200 rows however many tasks it holds, where walking the create_ts index runs
 * for seconds on the master's only thread. On PostgreSQL one GROUP BY through that index, in the database server.
 */
export async function taskDailyCounts(store: Store, offMs: number, since: number): Promise<{ d: number; n: number }[]> {
  const day = sql`(create_ts + ${sql.lit(offMs)}) / ${sql.lit(DAY_MS)}`;
  const created =
    store.engine === 'sqlite'
      ? sql`SELECT (minute * 60000 + ${sql.lit(offMs)}) / ${sql.lit(DAY_MS)} AS d, SUM(n) AS n FROM task_minute_counts
          WHERE minute >= ${sql.lit(Math.floor(since / 60_000))} GROUP BY 1`
      : sql`SELECT ${day} AS d, COUNT(*) AS n FROM tasks WHERE create_ts >= ${sql.lit(since)} GROUP BY 1`;
  const { rows } = await sql<{ d: number; n: number }>`SELECT t.d, t.n - COALESCE(g.n, 0) AS n
    FROM (${created}) t
    LEFT JOIN (SELECT ${day} AS d, COUNT(*) AS n FROM tasks
      WHERE spider_id IN (${PURGING}) AND create_ts >= ${sql.lit(since)} GROUP BY 1) g ON g.d = t.d`.execute(store.db);
  return rows.map((r) => ({ d: Number(r.d), n: Number(r.n) })).filter((r) => r.n > 0);
}

export async function onlineNodeCount(store: Store): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM nodes WHERE lower(status) = 'online'`.execute(
    store.db,
  );
  return Number(rows[0]?.n ?? 0);
}

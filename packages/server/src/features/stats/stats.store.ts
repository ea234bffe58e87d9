import { sql } from 'kysely';
import type { Store } from '../../store/db.ts';

const DAY_MS = 86400_000;

type Count<K extends string> = Record<K, string> & { n: number };

/** Deleted spiders whose tasks are still being purged: their tasks count nowhere (none, or a handful, at a time). */
async function spidersBeingPurged(store: Store): Promise<string[]> {
  const { rows } = await sql<{ spider_id: string }>`SELECT spider_id FROM spider_purges`.execute(store.db);
  return rows.map((r) => r.spider_id);
}

/** `counts` less `gone`, by key; keys left with nothing are dropped. */
function lessCounts<K extends string>(counts: Count<K>[], gone: Count<K>[], key: K): Count<K>[] {
  const less = new Map(gone.map((g) => [String(g[key]), Number(g.n)]));
  return counts.map((c) => ({ ...c, n: Number(c.n) - (less.get(String(c[key])) ?? 0) })).filter((c) => c.n > 0);
}

/**
 * Tasks per status, leaving out the tasks of deleted spiders still being purged. On SQLite the store keeps the
 * counts, per status and per spider and status (triggers on the tasks table): counting there would hold the master's
 * only thread for the whole table. On PostgreSQL one GROUP BY over the status index, in the database server while
 * the master goes on, less the purged spiders' tasks counted along their own index.
 */
export async function taskStatusCounts(store: Store): Promise<{ status: string; n: number }[]> {
  const purging = await spidersBeingPurged(store);
  const sqlite = store.engine === 'sqlite';
  const { rows } = await (
    sqlite
      ? sql<Count<'status'>>`SELECT status, n FROM task_status_counts WHERE n > 0`
      : sql<Count<'status'>>`SELECT status, COUNT(*) AS n FROM tasks GROUP BY status`
  ).execute(store.db);
  if (!purging.length) return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
  const ids = sql.join(purging);
  const gone = await (
    sqlite
      ? sql<
          Count<'status'>
        >`SELECT status, SUM(n) AS n FROM task_spider_counts WHERE spider_id IN (${ids}) GROUP BY status`
      : sql<Count<'status'>>`SELECT status, COUNT(*) AS n FROM tasks WHERE spider_id IN (${ids}) GROUP BY status`
  ).execute(store.db);
  return lessCounts(rows, gone.rows, 'status');
}

/**
 * Tasks created since `since` per day number (days start `offMs` after UTC midnight), through the create_ts index,
 * less those of deleted spiders still being purged, through their own (spider_id, create_ts) index.
 */
export async function taskDailyCounts(store: Store, offMs: number, since: number): Promise<{ d: number; n: number }[]> {
  const purging = await spidersBeingPurged(store);
  const day = sql`(create_ts + ${sql.lit(offMs)}) / ${sql.lit(DAY_MS)}`;
  const { rows } = await sql<Count<'d'>>`
        SELECT ${day} AS d, COUNT(*) AS n FROM tasks WHERE create_ts >= ${sql.lit(since)} GROUP BY 1`.execute(store.db);
  const days = rows.map((r) => ({ d: String(r.d), n: Number(r.n) }));
  if (!purging.length) return days.map((r) => ({ d: Number(r.d), n: r.n }));
  const gone = await sql<Count<'d'>>`
        SELECT ${day} AS d, COUNT(*) AS n FROM tasks
        WHERE spider_id IN (${sql.join(purging)}) AND create_ts >= ${sql.lit(since)} GROUP BY 1`.execute(store.db);
  return lessCounts(days, gone.rows, 'd').map((r) => ({ d: Number(r.d), n: r.n }));
}

export async function onlineNodeCount(store: Store): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM nodes WHERE lower(status) = 'online'`.execute(
    store.db,
  );
  return Number(rows[0]?.n ?? 0);
}

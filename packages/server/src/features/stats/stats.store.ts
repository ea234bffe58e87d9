import { sql } from 'kysely';
import type { Store } from '../../store/db.ts';

const DAY_MS = 86400_000;

/**
 * Tasks per status. On SQLite the store keeps the counts (triggers on the tasks table): counting there would hold
 * the master's only thread for the whole table. On PostgreSQL one GROUP BY over the status index, in the database
 * server while the master goes on.
 */
export async function taskStatusCounts(store: Store): Promise<{ status: string; n: number }[]> {
  const query =
    store.engine === 'sqlite'
      ? sql<{ status: string; n: number }>`SELECT status, n FROM task_status_counts WHERE n > 0`
      : sql<{ status: string; n: number }>`SELECT status, COUNT(*) AS n FROM tasks GROUP BY status`;
  const { rows } = await query.execute(store.db);
  return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
}

/** Tasks created since `since` per day number (days start `offMs` after UTC midnight), through the create_ts index. */
export async function taskDailyCounts(store: Store, offMs: number, since: number): Promise<{ d: number; n: number }[]> {
  const { rows } = await sql<{ d: number; n: number }>`
        SELECT (create_ts + ${sql.lit(offMs)}) / ${sql.lit(DAY_MS)} AS d, COUNT(*) AS n FROM tasks
        WHERE create_ts >= ${sql.lit(since)} GROUP BY 1`.execute(store.db);
  return rows;
}

export async function onlineNodeCount(store: Store): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM nodes WHERE lower(status) = 'online'`.execute(
    store.db,
  );
  return Number(rows[0]?.n ?? 0);
}

import { sql } from 'kysely';
import type { Store } from '../../store/db.ts';

const DAY_MS = 86400_000;

/** Tasks per status: one GROUP BY, an index-only scan with an index on tasks.status. */
export async function taskStatusCounts(store: Store): Promise<{ status: string; n: number }[]> {
  const { rows } = await sql<{
    status: string;
    n: number;
  }>`SELECT status, COUNT(*) AS n FROM tasks GROUP BY status`.execute(store.db);
  return rows;
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

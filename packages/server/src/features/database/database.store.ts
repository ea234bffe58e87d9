import { sql } from 'kysely';
import type { Store } from '../../store/db.ts';

/**
 * Which of the given tables exist, in one cheap catalogue query. Other features create some of the tables this
 * feature reads (tasks, task_logs, nodes, deploys, …); until their migrations land we answer zeros instead of failing.
 */
export async function existingTables(store: Store, names: readonly string[]): Promise<Set<string>> {
  if (!names.length) return new Set();
  const list = sql.join(names.map((n) => sql.lit(n)));
  const q =
    store.engine === 'sqlite'
      ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${list})`
      : sql<{
          name: string;
        }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN (${list})`;
  const { rows } = await q.execute(store.db);
  return new Set(rows.map((r) => r.name));
}

/** Column names of a table (empty when it does not exist). */
export async function tableColumns(store: Store, table: string): Promise<Set<string>> {
  const q =
    store.engine === 'sqlite'
      ? sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`
      : sql<{
          name: string;
        }>`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`;
  const { rows } = await q.execute(store.db);
  return new Set(rows.map((r) => r.name));
}

/** PostgreSQL: bytes of the whole database. */
export async function postgresDatabaseBytes(store: Store): Promise<number> {
  const { rows } = await sql<{ size: number }>`SELECT pg_database_size(current_database()) AS size`.execute(store.db);
  return Number(rows[0]?.size ?? 0);
}

/** The cheapest round trip to the store (throws when it is unreachable). */
export async function pingStore(store: Store): Promise<void> {
  await sql`SELECT 1`.execute(store.db);
}

/** PostgreSQL: the planner's row estimate per table. */
export async function postgresRowEstimates(store: Store, names: readonly string[]): Promise<Map<string, number>> {
  if (!names.length) return new Map();
  const { rows } = await sql<{ name: string; est: number }>`
      SELECT c.relname AS name, c.reltuples::bigint AS est FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN (${sql.join(names.map((n) => sql.lit(n)))})`.execute(
    store.db,
  );
  return new Map(rows.map((r) => [r.name, Number(r.est)]));
}

/** Exact number of rows of a table. */
export async function countRows(store: Store, table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.table(table)}`.execute(store.db);
  return Number(rows[0]?.n ?? 0);
}

/** Up to `limit` tasks finished before `cutoff` that still have log lines. */
export async function tasksWithOldLogs(store: Store, cutoff: number, limit: number): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
      SELECT t.id FROM tasks t
      WHERE t.finish_ts IS NOT NULL AND t.finish_ts > 0 AND t.finish_ts < ${cutoff}
        AND EXISTS (SELECT 1 FROM task_logs l WHERE l.task_id = t.id)
      LIMIT ${limit}`.execute(store.db);
  return rows.map((r) => r.id);
}

/**
 * Deletes the log lines of these tasks; answers how many lines went. On PostgreSQL the chunk index of long logs
 * holds the same lines: it loses them in the same transaction.
 */
export async function deleteTaskLogs(store: Store, taskIds: string[]): Promise<number> {
  const ids = sql.join(taskIds.map((id) => sql`${id}`));
  return store.db.transaction().execute(async (trx) => {
    const res = await sql`DELETE FROM task_logs WHERE task_id IN (${ids})`.execute(trx);
    if (store.engine === 'postgres') {
      await sql`DELETE FROM task_log_chunks WHERE task_id IN (${ids})`.execute(trx);
      await sql`DELETE FROM task_log_chunk_progress WHERE task_id IN (${ids})`.execute(trx);
    }
    return Number(res.numAffectedRows ?? 0);
  });
}

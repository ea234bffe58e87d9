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
      : sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN (${list})`;
  const { rows } = await q.execute(store.db);
  return new Set(rows.map((r) => r.name));
}

/** Column names of a table (empty when it does not exist). */
export async function tableColumns(store: Store, table: string): Promise<Set<string>> {
  const q =
    store.engine === 'sqlite'
      ? sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`
      : sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`;
  const { rows } = await q.execute(store.db);
  return new Set(rows.map((r) => r.name));
}

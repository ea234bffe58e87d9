import { statSync } from 'node:fs';
import { sql } from 'kysely';
import type { CleanupResult, DatabaseInfo, DatabaseTableCount } from '@crawldeck/shared';
import type { Store } from '../../store/db.ts';
import { getSetting, putSetting } from '../system/settings.store.ts';
import { existingTables, tableColumns } from './tables.ts';

/** Main tables shown on Settings → Database, when they exist (other features create most of them). */
export const MAIN_TABLES = [
  'users',
  'tokens',
  'projects',
  'spiders',
  'variables',
  'nodes',
  'deploys',
  'tasks',
  'task_logs',
  'task_results',
  'results',
  'schedules',
  'webhooks',
  'sites',
  'collected_urls',
  'feedback',
  'actions',
] as const;

export const RETENTION_KEY = 'log_retention_days';
export const LAST_CLEANUP_KEY = 'log_cleanup_last';
// Above this many rows (planner estimate) PostgreSQL shows the estimate instead of a full count.
const PG_EXACT_COUNT_LIMIT = 200_000;
const CLEANUP_BATCH_TASKS = 200;

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

async function sizeBytes(store: Store): Promise<number> {
  if (store.engine === 'sqlite') return fileSize(store.location) + fileSize(`${store.location}-wal`);
  const { rows } = await sql<{ size: number }>`SELECT pg_database_size(current_database()) AS size`.execute(store.db);
  return Number(rows[0]?.size ?? 0);
}

async function health(store: Store): Promise<DatabaseInfo['health']> {
  const started = performance.now();
  try {
    await sql`SELECT 1`.execute(store.db);
    return { ok: true, latency_ms: Math.round((performance.now() - started) * 100) / 100 };
  } catch (err) {
    return { ok: false, latency_ms: Math.round(performance.now() - started), error: (err as Error).message };
  }
}

async function tableCounts(store: Store): Promise<DatabaseTableCount[]> {
  const present = await existingTables(store, MAIN_TABLES);
  const names = MAIN_TABLES.filter((t) => present.has(t));
  let estimates = new Map<string, number>();
  if (store.engine === 'postgres' && names.length) {
    const { rows } = await sql<{ name: string; est: number }>`
      SELECT c.relname AS name, c.reltuples::bigint AS est FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN (${sql.join(names.map((n) => sql.lit(n)))})`.execute(store.db);
    estimates = new Map(rows.map((r) => [r.name, Number(r.est)]));
  }
  const out: DatabaseTableCount[] = [];
  for (const name of names) {
    const est = estimates.get(name);
    if (est !== undefined && est > PG_EXACT_COUNT_LIMIT) {
      out.push({ table: name, rows: est, approximate: true });
      continue;
    }
    const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.table(name)}`.execute(store.db);
    out.push({ table: name, rows: Number(rows[0]?.n ?? 0), approximate: false });
  }
  return out;
}

export async function databaseInfo(store: Store): Promise<DatabaseInfo> {
  const [size, h, tables, retention, last] = await Promise.all([
    sizeBytes(store),
    health(store),
    tableCounts(store),
    getSetting(store.db, RETENTION_KEY, 0),
    getSetting<{ at: string; deleted: number } | null>(store.db, LAST_CLEANUP_KEY, null),
  ]);
  return { engine: store.engine, location: store.location, size_bytes: size, health: h, tables, log_retention_days: retention, last_cleanup: last };
}

/**
 * Deletes the task_logs rows of tasks finished longer ago than the retention, in batches of tasks so a large
 * backlog never holds one long transaction. Skips (ran: false) when retention is 0 or the task tables are missing.
 */
export async function cleanupTaskLogs(store: Store, now = Date.now()): Promise<CleanupResult> {
  const days = await getSetting(store.db, RETENTION_KEY, 0);
  if (!days || days <= 0) return { deleted: 0, ran: false };
  const present = await existingTables(store, ['tasks', 'task_logs']);
  if (!present.has('tasks') || !present.has('task_logs')) return { deleted: 0, ran: false };
  const [taskCols, logCols] = await Promise.all([tableColumns(store, 'tasks'), tableColumns(store, 'task_logs')]);
  if (!taskCols.has('finish_ts') || !logCols.has('task_id')) return { deleted: 0, ran: false };
  const cutoff = now - days * 86400_000;
  let deleted = 0;
  for (;;) {
    const { rows } = await sql<{ id: string }>`
      SELECT t.id FROM tasks t
      WHERE t.finish_ts IS NOT NULL AND t.finish_ts > 0 AND t.finish_ts < ${cutoff}
        AND EXISTS (SELECT 1 FROM task_logs l WHERE l.task_id = t.id)
      LIMIT ${CLEANUP_BATCH_TASKS}`.execute(store.db);
    if (!rows.length) break;
    const ids = sql.join(rows.map((r) => sql`${r.id}`));
    const res = await sql`DELETE FROM task_logs WHERE task_id IN (${ids})`.execute(store.db);
    deleted += Number(res.numAffectedRows ?? 0);
    if (rows.length < CLEANUP_BATCH_TASKS) break;
  }
  await putSetting(store.db, LAST_CLEANUP_KEY, { at: new Date(now).toISOString(), deleted });
  return { deleted, ran: true };
}

import { statSync } from 'node:fs';
import type { CleanupResult, DatabaseInfo, DatabaseTableCount } from '@crawldeck/shared';
import type { Store } from '../../store/db.ts';
import { getSetting, putSetting } from '../system/settings.store.ts';
import {
  countRows,
  deleteTaskLogs,
  existingTables,
  pingStore,
  postgresDatabaseBytes,
  postgresRowEstimates,
  tableColumns,
  tasksWithOldLogs,
} from './database.store.ts';

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
  return postgresDatabaseBytes(store);
}

async function health(store: Store): Promise<DatabaseInfo['health']> {
  const started = performance.now();
  try {
    await pingStore(store);
    return { ok: true, latency_ms: Math.round((performance.now() - started) * 100) / 100 };
  } catch (err) {
    return { ok: false, latency_ms: Math.round(performance.now() - started), error: (err as Error).message };
  }
}

async function tableCounts(store: Store): Promise<DatabaseTableCount[]> {
  const present = await existingTables(store, MAIN_TABLES);
  const names = MAIN_TABLES.filter((t) => present.has(t));
  const estimates = store.engine === 'postgres' ? await postgresRowEstimates(store, names) : new Map<string, number>();
  const out: DatabaseTableCount[] = [];
  for (const name of names) {
    const est = estimates.get(name);
    if (est !== undefined && est > PG_EXACT_COUNT_LIMIT) {
      out.push({ table: name, rows: est, approximate: true });
      continue;
    }
    out.push({ table: name, rows: await countRows(store, name), approximate: false });
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
  return {
    engine: store.engine,
    location: store.location,
    size_bytes: size,
    health: h,
    tables,
    log_retention_days: retention,
    last_cleanup: last,
  };
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
    const ids = await tasksWithOldLogs(store, cutoff, CLEANUP_BATCH_TASKS);
    if (!ids.length) break;
    deleted += await deleteTaskLogs(store, ids);
    if (ids.length < CLEANUP_BATCH_TASKS) break;
  }
  await putSetting(store.db, LAST_CLEANUP_KEY, { at: new Date(now).toISOString(), deleted });
  return { deleted, ran: true };
}

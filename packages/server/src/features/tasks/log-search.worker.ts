/**
 * A log search worker thread: its own read-only SQLite connection, one search at a time, so a long search never
 * holds the master's main thread (better-sqlite3 runs a query synchronously on the thread that calls it).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openLogReader, searchSqliteLog, type LogSearchJob } from './log-search.store.ts';

const conn = openLogReader((workerData as { file: string }).file);

parentPort?.on('message', (msg: { id: number; job: LogSearchJob }) => {
  try {
    parentPort?.postMessage({ id: msg.id, answer: searchSqliteLog(conn, msg.job) });
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});

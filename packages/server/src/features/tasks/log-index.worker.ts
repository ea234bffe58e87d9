/**
 * The log indexer's worker thread: its own writable SQLite connection, so adding lines to the trigram index never
 * runs on the master's main thread. It writes only the index file, so the master's writes never wait for it; it
 * works in chunks of a few milliseconds all the same (a stop message waits for the chunk, and removing a gone task
 * and indexing new lines take turns), removes gone tasks' entries first, then catches up on stored lines task by
 * task, and rests for the idle pause once nothing is left.
 */
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import type { SqliteCacheSettings } from '../../store/sqlite-cache.ts';
import { dropCaughtUp, indexNextLines, openLogIndexWriter, purgeRetired, tasksBehind } from './log-index.store.ts';

const { file, idleMs, cache } = workerData as { file: string; idleMs: number; cache: SqliteCacheSettings };

/**
 * The indexer is background work: on Linux its thread gets a lower CPU priority than the master's main thread (a
 * thread has a nice value of its own), so on a busy machine requests are served first. Elsewhere it keeps the
 * process's priority.
 */
function yieldCpu(): void {
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (thread > 0) os.setPriority(thread, 5);
  } catch {
    // No per-thread priority here.
  }
}
yieldCpu();
const conn = openLogIndexWriter(file, cache);

/** A chunk should take about this long. */
const TARGET_MS = 20;
const CHUNK = { min: 100, start: 1000, max: 10_000 };
let chunk = CHUNK.start;
const stop = new AbortController();
parentPort?.on('message', (msg: string) => {
  if (msg === 'stop') stop.abort();
});

/** Runs one chunk and resizes the next one so it takes about TARGET_MS. */
function timedChunk(work: (size: number) => number): number {
  const t0 = performance.now();
  const done = work(chunk);
  const ms = performance.now() - t0;
  if (done >= chunk)
    chunk = Math.min(CHUNK.max, Math.max(CHUNK.min, Math.round((chunk * TARGET_MS) / Math.max(ms, 1))));
  return done;
}

/** One chunk of whatever work there is; false when there was none. */
function step(): boolean {
  if (timedChunk((size) => purgeRetired(conn, size)) > 0) return true;
  for (const t of tasksBehind(conn, 16)) {
    if (timedChunk((size) => indexNextLines(conn, t.taskId, size)) > 0) return true;
  }
  return dropCaughtUp(conn, 1000) > 0;
}

while (!stop.signal.aborted) {
  let worked = false;
  try {
    worked = step();
  } catch (err) {
    parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
  // Between chunks the thread yields, so the stop message gets its turn.
  await sleep(worked ? 0 : idleMs, undefined, { signal: stop.signal }).catch(() => undefined);
}
conn.close();
parentPort?.close();

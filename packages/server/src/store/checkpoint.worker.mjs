// The SQLite checkpointer's worker thread (plain JavaScript: it needs no loader and starts at once). It copies the
// write-ahead log back into the database file on its own connection, so that work and its disk flushes never run on
// the master's main thread. See checkpointer.ts for when and how.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, truncateBytes, stats } = workerData;
/** Shared counters the master reads (see checkpointer.ts for their order). */
const counters = new Int32Array(stats);
const [CHECKPOINTS, TRUNCATES, FRAMES, MAX_MS, ERRORS, WAL_KB] = [0, 1, 2, 3, 4, 5];

const conn = new Database(file, { fileMustExist: true });
// A truncating checkpoint waits at most this long for writers and readers, then tries again on a later round.
conn.pragma('busy_timeout = 1000');

const walBytes = () => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

/**
 * Frames a truncating checkpoint may be left to copy while it holds the master's writes (16 MB of 4 KiB pages), unless
 * the log is four times past its ceiling.
 */
const TRUNCATE_LEFT_FRAMES = 4096;

/** One checkpoint of the given mode, counted; returns the frames of the log it could not copy. */
function run(mode) {
  const t0 = performance.now();
  const [r] = conn.pragma(`wal_checkpoint(${mode})`);
  const ms = Math.round(performance.now() - t0);
  Atomics.add(counters, mode === 'TRUNCATE' ? TRUNCATES : CHECKPOINTS, 1);
  if (r.checkpointed > 0) Atomics.add(counters, FRAMES, r.checkpointed);
  if (ms > Atomics.load(counters, MAX_MS)) Atomics.store(counters, MAX_MS, ms);
  return Math.max(0, r.log - r.checkpointed);
}

/**
 * One round: a passive checkpoint, which copies the bulk of a large log while writers go on, and a truncating one
 * after it when the log has grown past its ceiling. A log copied whole usually needs nothing more: the next commit
 * writes it again from its start (unless readers are still on it) and SQLite trims the file to its size limit. The
 * truncating one holds writers while it runs (emptying a file of hundreds of MB alone takes 150–400 ms), so it runs
 * only when a little is left for it to copy (readers of an older snapshot hold back the rest), or when the log is
 * four times past its ceiling.
 */
function checkpoint() {
  try {
    const left = run('PASSIVE');
    const size = walBytes();
    const fewLeft = left > 0 && left <= TRUNCATE_LEFT_FRAMES;
    if (size > 4 * truncateBytes || (size > truncateBytes && fewLeft)) run('TRUNCATE');
  } catch {
    // Busy (a truncation waited too long) or the file went away: the next round tries again.
    Atomics.add(counters, ERRORS, 1);
  }
  Atomics.store(counters, WAL_KB, Math.round(walBytes() / 1024));
}

let timer = setTimeout(function round() {
  checkpoint();
  timer = setTimeout(round, intervalMs);
}, intervalMs);

parentPort.on('message', (msg) => {
  if (msg !== 'stop') return;
  clearTimeout(timer);
  checkpoint();
  conn.close();
  parentPort.close();
});

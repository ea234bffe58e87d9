// The SQLite checkpointer's worker thread (plain JavaScript: it needs no loader and starts at once). It copies the
// write-ahead log back into the database file on its own connection, so that work and its disk flushes never run on
// the master's main thread. See checkpointer.ts for when and how.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, keepBytes, quietMs, truncateBytes, stats } = workerData;
/** Shared counters the master reads (see checkpointer.ts for their order). */
const counters = new Int32Array(stats);
const [CHECKPOINTS, TRUNCATES, FRAMES, MAX_MS, ERRORS, WAL_KB, RESTARTS] = [0, 1, 2, 3, 4, 5, 6];

const conn = new Database(file, { fileMustExist: true });
/** Bytes a frame of the log takes: a page and its header. */
const frameBytes = conn.pragma('page_size', { simple: true }) + 24;

const walBytes = () => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

/**
 * One checkpoint of the given mode, waiting at most `waitMs` for writers and readers (a passive one waits for none);
 * counted. Returns the log's frames, how many of them it could not copy, and whether it got all it asked for.
 */
function run(mode, waitMs = 0) {
  conn.pragma(`busy_timeout = ${waitMs}`);
  const t0 = performance.now();
  const [r] = conn.pragma(`wal_checkpoint(${mode})`);
  const ms = Math.round(performance.now() - t0);
  Atomics.add(counters, { PASSIVE: CHECKPOINTS, RESTART: RESTARTS, TRUNCATE: TRUNCATES }[mode], 1);
  if (r.checkpointed > 0) Atomics.add(counters, FRAMES, r.checkpointed);
  if (ms > Atomics.load(counters, MAX_MS)) Atomics.store(counters, MAX_MS, ms);
  return { frames: r.log, left: Math.max(0, r.log - r.checkpointed), busy: r.busy === 1 };
}

/**
 * How long a restarting checkpoint looks for a moment without readers of the log. It holds the master's commits
 * meanwhile, so it looks only briefly; a later round tries again.
 */
const RESTART_WAIT_MS = 10;

/** The log's frames after the previous round, and since when no commit came in (the same count, copied whole). */
let framesBefore = -1;
let quietSince = performance.now();

/**
 * One round. A passive checkpoint copies the log while writers go on; once it copied the log whole, a second one
 * copies what came in meanwhile, and a restarting one makes sure the next commit writes the log again from its
 * start. That one holds commits while it looks for a moment without readers of the log, for RESTART_WAIT_MS at most
 * (a later round tries again). The log file keeps its size. Cutting it back holds commits while it frees the file's
 * blocks (hundreds of milliseconds for a few hundred MB), so it runs only after `quietMs` without a commit, and gives
 * up at once if a reader or writer is there. Or, as a safety valve, when readers kept the log from starting over
 * until the file grew past its ceiling: then it waits up to a second for them, and commits wait with it.
 */
function checkpoint() {
  try {
    const { frames, left } = run('PASSIVE');
    const now = performance.now();
    if (frames !== framesBefore || left > 0) quietSince = now;
    framesBefore = frames;
    const size = walBytes();
    let cut = false;
    if (size > truncateBytes) cut = !run('TRUNCATE', 1000).busy;
    else if (size > keepBytes && now - quietSince >= quietMs) cut = !run('TRUNCATE').busy;
    else if (left === 0 && frames > 0) {
      // What came in during the first copy is copied without holding commits too, so the restart has little left.
      run('PASSIVE');
      run('RESTART', RESTART_WAIT_MS);
    }
    Atomics.store(counters, WAL_KB, cut ? 0 : Math.round((frames * frameBytes) / 1024));
  } catch {
    // The file went away, or the store failed: the next round tries again.
    Atomics.add(counters, ERRORS, 1);
  }
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

import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/**
 * Write-ahead-log checkpoints of the SQLite store, off the master's main thread.
 *
 * In WAL mode every commit appends to the log, and a checkpoint copies the log back into the database file and
 * flushes it to disk. SQLite runs that checkpoint by itself inside the commit that makes the log pass 1 000 pages,
 * on the thread that committed: for the master that was its main thread, and a request arriving meanwhile waited
 * for the copy and the disk. The master's connection therefore has the automatic checkpoint turned off, and a
 * worker thread with a connection of its own runs a passive checkpoint (it never waits for or blocks readers and
 * writers) every `intervalMs`.
 *
 * A log copied whole starts over at its start with the next commit, unless a reader still uses it. After each passive
 * checkpoint that copied everything, the worker runs a restarting one, which looks for a moment without readers of
 * the log (10 ms at most; a later round tries again): a store that always has some reader still has its log start
 * over. The log file keeps its size when it starts over: cutting it back holds the master's commits while the
 * file's blocks are freed (hundreds of milliseconds for a few hundred MB). The worker cuts it (a truncating
 * checkpoint) only when the store is quiet: the log was copied whole, no commit came in for `quietMs`, and the file
 * is larger than `keepBytes`; even then it gives up at once if a reader or writer is there. A busy store keeps a log
 * file as large as its busiest moment needed; that is disk space, not time.
 *
 * Safety valve: a passive checkpoint cannot finish while a reader still uses the older part of the log, and the log
 * starts over only at a moment without such readers, so under endless overlapping reads the log could keep growing.
 * When the file is larger than `truncateBytes`, the worker cuts it whatever the load: it waits (at most a second per
 * round) for a moment without readers of the log, copies what is left and empties the file; the master's commits
 * wait meanwhile. A migration that builds an index on millions of rows also writes gigabytes of log in one
 * transaction: the passive checkpoint of the same round copies the bulk of it first, while the master's commits go on.
 */
export interface CheckpointStats {
  /** Passive rounds run. */
  checkpoints: number;
  /** Truncating rounds tried (the store was quiet with a large log, or the log had passed its ceiling). */
  truncates: number;
  /** Log pages copied into the database file. */
  frames: number;
  /** The longest round, in ms (on the worker's thread). */
  maxMs: number;
  /** Rounds that failed (the file went away, the store failed) and were left to the next one. */
  errors: number;
  /** What the log held at the last round (written since it last started over), in KiB. */
  walKiB: number;
  /** Rounds that asked for the log to start over (it does, with the next commit, if no reader was on it). */
  restarts: number;
}

export interface Checkpointer {
  stats(): CheckpointStats;
  /** Stops the worker after a last passive round. */
  stop(): Promise<void>;
}

export const CHECKPOINT_DEFAULTS = {
  intervalMs: 500,
  keepBytes: 64 * 1024 * 1024,
  quietMs: 10_000,
  truncateBytes: 1024 * 1024 * 1024,
};

/**
 * `onLost` runs when the worker ends without being stopped (it failed to start or crashed): the caller then hands
 * checkpoints back to SQLite, so the log cannot grow without end.
 */
export function startCheckpointer(
  file: string,
  opts: Partial<typeof CHECKPOINT_DEFAULTS> & { onLost?: () => void } = {},
): Checkpointer {
  const { intervalMs, keepBytes, quietMs, truncateBytes } = { ...CHECKPOINT_DEFAULTS, ...opts };
  let stopping = false;
  const shared = new SharedArrayBuffer(7 * Int32Array.BYTES_PER_ELEMENT);
  const counters = new Int32Array(shared);
  const worker = new Worker(new URL('./checkpoint.worker.mjs', import.meta.url), {
    workerData: { file, intervalMs, keepBytes, quietMs, truncateBytes, stats: shared },
    execArgv: [],
  });
  // Not a reason for the process to stay up.
  worker.unref();
  const exited = once(worker, 'exit').catch(() => undefined);
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    if (!stopping) opts.onLost?.();
  });
  return {
    stats: () => {
      const [checkpoints, truncates, frames, maxMs, errors, walKiB, restarts] = Array.from(counters);
      return { checkpoints, truncates, frames, maxMs, errors, walKiB, restarts } as CheckpointStats;
    },
    stop: async () => {
      stopping = true;
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

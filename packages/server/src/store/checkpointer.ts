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
 * Safety valve: a passive checkpoint cannot finish while a reader still uses the older part of the log, so under
 * endless overlapping reads the log could keep growing. When the log file is larger than `truncateBytes`, the worker
 * runs a truncating checkpoint too: it waits (at most a second per round) for a moment without readers of the
 * log, copies what is left and empties the file. Commits of the master wait for that round, which only happens when
 * passive rounds fell behind or one transaction wrote a large log (a migration that builds an index on millions of
 * rows writes gigabytes). A passive checkpoint runs first in that round, so the copy of that bulk does not hold the
 * master's commits. A log it copied whole needs no truncation (the next commit writes it again from its start); else
 * the truncating one runs when at most 16 MB is left for it (readers of an older snapshot hold back the rest), or when
 * the log is four times past its ceiling.
 */
export interface CheckpointStats {
  /** Passive rounds run. */
  checkpoints: number;
  /** Truncating rounds run (the log had passed its ceiling). */
  truncates: number;
  /** Log pages copied into the database file. */
  frames: number;
  /** The longest round, in ms (on the worker's thread). */
  maxMs: number;
  /** Rounds that failed (busy) and were left to the next one. */
  errors: number;
  /** Size of the log file after the last round, in KiB. */
  walKiB: number;
}

export interface Checkpointer {
  stats(): CheckpointStats;
  /** Stops the worker after a last passive round. */
  stop(): Promise<void>;
}

export const CHECKPOINT_DEFAULTS = { intervalMs: 500, truncateBytes: 256 * 1024 * 1024 };

/**
 * `onLost` runs when the worker ends without being stopped (it failed to start or crashed): the caller then hands
 * checkpoints back to SQLite, so the log cannot grow without end.
 */
export function startCheckpointer(
  file: string,
  opts: Partial<typeof CHECKPOINT_DEFAULTS> & { onLost?: () => void } = {},
): Checkpointer {
  const { intervalMs, truncateBytes } = { ...CHECKPOINT_DEFAULTS, ...opts };
  let stopping = false;
  const shared = new SharedArrayBuffer(6 * Int32Array.BYTES_PER_ELEMENT);
  const counters = new Int32Array(shared);
  const worker = new Worker(new URL('./checkpoint.worker.mjs', import.meta.url), {
    workerData: { file, intervalMs, truncateBytes, stats: shared },
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
      const [checkpoints, truncates, frames, maxMs, errors, walKiB] = Array.from(counters);
      return { checkpoints, truncates, frames, maxMs, errors, walKiB } as CheckpointStats;
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

import { setTimeout as rest } from 'node:timers/promises';
import type { Store } from './db.ts';

/** What SQLite's write-ahead log may hold (KiB) before bulk background writes wait for a checkpoint round. */
const LOG_WAIT_KIB = 128 * 1024;
/** The longest wait for a checkpoint round, and how often the wait looks. */
const LOG_WAIT_MAX_MS = 2_000;
const LOG_WAIT_STEP_MS = 50;

/**
 * For bulk background writes on SQLite (a spider's purge, the metrics retention catching up): lets the checkpoints (a
 * thread of their own) catch up with them. While the log holds more than LOG_WAIT_KIB, waits for one more checkpoint
 * round. Statements that follow each other with short rests can write faster than a checkpoint copies, and leave
 * few moments for the log to start over; the log file then reaches its ceiling, and the truncating checkpoint that
 * cuts it holds every commit of the master (hundreds of ms). The bulk work waits instead.
 */
export async function checkpointCaughtUp(store: Pick<Store, 'checkpoints'>): Promise<void> {
  const stats = store.checkpoints?.();
  if (!stats || stats.walKiB < LOG_WAIT_KIB) return;
  const rounds = stats.checkpoints + stats.truncates;
  for (let waited = 0; waited < LOG_WAIT_MAX_MS; waited += LOG_WAIT_STEP_MS) {
    const now = store.checkpoints!();
    if (now.checkpoints + now.truncates > rounds) return;
    await rest(LOG_WAIT_STEP_MS);
  }
}

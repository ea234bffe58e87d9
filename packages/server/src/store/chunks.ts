/**
 * Big batches of node writes and reads go to the store a bounded chunk at a time, with the master's other work
 * (requests, heartbeats, timers) let through between chunks: on SQLite a statement holds the master's only thread
 * while it runs, so one statement over a whole fleet would hold every request behind it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Calls `fn` on consecutive slices of at most `size` items, yielding to other work between them. */
export async function inChunks<T>(items: readonly T[], size: number, fn: (chunk: T[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await nextTurn();
    await fn(items.slice(i, i + size));
  }
}

export { nextTurn };

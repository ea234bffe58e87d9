import { describe, expect, it } from 'vitest';
import type { CheckpointStats } from './checkpointer.ts';
import { checkpointCaughtUp } from './checkpoint-wait.ts';

/** A store whose checkpoint thread reports `walKiB` and finishes one more round after `roundAfterLooks` looks. */
function storeWithLog(walKiB: number, roundAfterLooks: number) {
  let looks = 0;
  const stats = (): CheckpointStats => {
    looks++;
    const rounds = looks > roundAfterLooks ? 1 : 0;
    return { checkpoints: rounds, truncates: 0, frames: 0, maxMs: 0, errors: 0, walKiB, restarts: 0 };
  };
  return { checkpoints: stats, looks: () => looks };
}

describe('bulk writes wait for the checkpoints', () => {
  it('a small log lets the work go on at once', async () => {
    const store = storeWithLog(1024, 100);
    await checkpointCaughtUp(store);
    expect(store.looks()).toBe(1);
  });

  it('a large log waits for one more checkpoint round', async () => {
    const store = storeWithLog(512 * 1024, 3);
    await checkpointCaughtUp(store);
    expect(store.looks()).toBe(4);
  });

  it('no checkpoint thread (PostgreSQL, or SQLite left to itself): no wait', async () => {
    await expect(checkpointCaughtUp({})).resolves.toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import {
  fitRound,
  nextRoundRows,
  PURGE_ROUND_BUDGET_MS,
  PURGE_ROUND_MAX_ROWS,
  PURGE_ROUND_MAX_TASKS,
  PURGE_ROUND_MIN_ROWS,
  IDLE_LOOP_SHARE,
  restAfter,
} from './purge-rounds.ts';

const task = (id: number, lines = 0, items = 0) => ({ id: String(id), log_lines: lines, result_count: items });

describe('the size of a purge round', () => {
  it('grows while rounds take well under the budget, up to its ceiling', () => {
    let rows = PURGE_ROUND_MIN_ROWS;
    const sizes = [rows];
    for (let k = 0; k < 40; k++) sizes.push((rows = nextRoundRows(rows, PURGE_ROUND_BUDGET_MS / 4)));
    expect(sizes[1]).toBeGreaterThan(sizes[0]);
    for (let k = 1; k < sizes.length; k++) expect(sizes[k]).toBeGreaterThanOrEqual(sizes[k - 1]);
    expect(rows).toBe(PURGE_ROUND_MAX_ROWS);
  });

  it('shrinks in proportion when a round took longer than the budget, so the next one fits it', () => {
    expect(nextRoundRows(8_000, PURGE_ROUND_BUDGET_MS * 4)).toBe(2_000);
    // A round that took 1 s (a busy machine, a cold cache) brings the size down to what fits in the budget at that pace.
    const rows = nextRoundRows(10_000, 1_000);
    expect((rows * 1_000) / 10_000).toBeLessThanOrEqual(PURGE_ROUND_BUDGET_MS);
    expect(nextRoundRows(PURGE_ROUND_MIN_ROWS, 60_000)).toBe(PURGE_ROUND_MIN_ROWS);
  });

  it('stays put between half the budget and the budget', () => {
    expect(nextRoundRows(3_000, PURGE_ROUND_BUDGET_MS * 0.75)).toBe(3_000);
    expect(nextRoundRows(3_000, PURGE_ROUND_BUDGET_MS)).toBe(3_000);
  });

  it('a round at the size given keeps its expected time within the budget at the pace measured', () => {
    // Whatever the pace (ms per row) the last round showed, the next round at that pace takes no more than the budget
    // once the size is above its floor.
    for (const msPerRow of [0.001, 0.01, 0.05, 0.2, 1]) {
      for (const last of [100, 1_000, 7_000, 20_000]) {
        const next = nextRoundRows(last, last * msPerRow);
        if (next > PURGE_ROUND_MIN_ROWS) expect(next * msPerRow).toBeLessThanOrEqual(PURGE_ROUND_BUDGET_MS * 1.5);
        if (last * msPerRow > PURGE_ROUND_BUDGET_MS && next > PURGE_ROUND_MIN_ROWS)
          expect(next * msPerRow).toBeLessThanOrEqual(PURGE_ROUND_BUDGET_MS);
      }
    }
  });
});

describe('the tasks of a purge round', () => {
  it('counts each task with its log lines and items against the round', () => {
    const tasks = [task(1, 10), task(2, 0, 5), task(3, 50), task(4)];
    expect(fitRound(tasks, 20).map((t) => t.id)).toEqual(['1', '2']);
    expect(fitRound(tasks, 1_000).map((t) => t.id)).toEqual(['1', '2', '3', '4']);
  });

  it('takes a task with more output than a round alone', () => {
    const tasks = [task(1, 1_000_000), task(2)];
    expect(fitRound(tasks, 500).map((t) => t.id)).toEqual(['1']);
    expect(fitRound([task(0), ...tasks], 500).map((t) => t.id)).toEqual(['0']);
  });

  it('takes no more tasks than one statement holds', () => {
    const tasks = Array.from({ length: PURGE_ROUND_MAX_TASKS + 10 }, (_, i) => task(i));
    expect(fitRound(tasks, PURGE_ROUND_MAX_ROWS)).toHaveLength(PURGE_ROUND_MAX_TASKS);
  });
});

describe('the rest after a purge round', () => {
  it('is as long as the round while the master has other work, shorter while it is idle', () => {
    expect(restAfter(20, 0.5)).toBe(20);
    expect(restAfter(20, IDLE_LOOP_SHARE)).toBe(20);
    expect(restAfter(20, 0)).toBeLessThan(20);
    expect(restAfter(20, 0)).toBeGreaterThan(0);
  });
});

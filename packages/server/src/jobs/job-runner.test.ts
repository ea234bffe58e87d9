import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { JobRunner } from './job-runner.ts';

const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

/** A run that stays open until the test lets it end. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return { done, open };
}

describe('job runner', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs a job at its pace, one run at a time, and a kick during a run asks for exactly one more', async () => {
    const jobs = new JobRunner(log);
    let starts = 0;
    let g = gate();
    const job = jobs.every({
      name: 'j',
      everyMs: 1000,
      run: () => {
        starts++;
        return g.done;
      },
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(starts).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toBe(1);
    expect(job.stats.running).toBe(true);
    // Kicks and time passing while the run is open start nothing beside it.
    job.kick();
    job.kick();
    await vi.advanceTimersByTimeAsync(5000);
    expect(starts).toBe(1);
    const first = g;
    g = gate();
    first.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(starts).toBe(2); // the kicks asked for one run right after
    const second = g;
    g = gate();
    second.open();
    await vi.advanceTimersByTimeAsync(999);
    expect(starts).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toBe(3);
    expect(job.stats.runs).toBe(2);
    g.open();
    await jobs.drain();
  });

  it('doubles the pause after each failure up to its ceiling, and goes back to its pace after a success', async () => {
    const jobs = new JobRunner(log);
    const startsAt: number[] = [];
    let failing = 4;
    const job = jobs.every({
      name: 'flaky',
      everyMs: 100,
      maxBackoffMs: 500,
      run: () => {
        startsAt.push(Date.now());
        if (failing-- > 0) throw new Error('store away');
      },
    });
    const t0 = Date.now();
    await vi.advanceTimersByTimeAsync(100 + 200 + 400 + 500 + 500 + 100);
    expect(startsAt.map((t) => t - t0)).toEqual([100, 300, 700, 1200, 1700, 1800]);
    expect(job.stats.failures).toBe(4);
    expect(job.stats.failingFor).toBe(0);
    expect(job.stats.lastError).toBeUndefined();
    await jobs.drain();
  });

  it('drain aborts the long run, waits for it and starts nothing afterwards', async () => {
    const jobs = new JobRunner(log);
    let starts = 0;
    let sawStop = false;
    const job = jobs.every({
      name: 'long',
      everyMs: 10,
      runAtStart: true,
      run: (stop) =>
        new Promise<void>((resolve) => {
          starts++;
          stop.addEventListener('abort', () => {
            sawStop = true;
            resolve();
          });
        }),
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(starts).toBe(1);
    await jobs.drain();
    expect(sawStop).toBe(true);
    job.kick();
    await vi.advanceTimersByTimeAsync(1000);
    expect(starts).toBe(1);
    expect(jobs.list().map((j) => [j.name, j.runs])).toEqual([['long', 1]]);
  });

  it('a stopped job frees its name; a running one does not', async () => {
    const jobs = new JobRunner(log);
    let runs = 0;
    const job = jobs.every({ name: 'resync', everyMs: 10, run: () => void runs++ });
    expect(() => jobs.every({ name: 'resync', everyMs: 10, run: () => undefined })).toThrow(/already running/);
    await vi.advanceTimersByTimeAsync(10);
    await job.stop();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
    const again = jobs.every({ name: 'resync', everyMs: 10, run: () => void runs++ });
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(2);
    expect(again.stats.runs).toBe(1);
    await jobs.drain();
  });
});

/**
 * The master's background work as named jobs. A job is a function run every so often: never two runs of one job at
 * once (a kick during a run asks for one more run right after it), a failed run waits longer before the next
 * (doubling up to a ceiling, back to the normal pace after a success), and shutdown stops the timers and waits for
 * the runs in progress. What each job did is counted for /metrics: runs, failures, the last run's duration.
 *
 * A job keeps no work in memory: what it works on is in the store, so a run cut short by a stop or a kill is taken
 * up by the next run of any master.
 */
import type { FastifyBaseLogger } from 'fastify';
import { isStoreUnavailable } from '../store/db.ts';

export interface JobSpec {
  /** Short and stable: it names the job in logs and metrics (`spider-purge`, `log-retention`). */
  name: string;
  /** Pause between the end of one run and the start of the next. */
  everyMs: number;
  /** One run; a long one looks at `stop` between steps and ends early once shutdown has begun. */
  run(stop: AbortSignal): Promise<unknown> | unknown;
  /** Longest pause after failures; default eight times `everyMs`, at most five minutes. */
  maxBackoffMs?: number;
  /** First run right away instead of after one pause. */
  runAtStart?: boolean;
}

export interface JobStats {
  name: string;
  everyMs: number;
  runs: number;
  failures: number;
  /** Failures since the last success; the next pause is doubled this many times. */
  failingFor: number;
  lastDurationMs: number;
  lastError: string | undefined;
  running: boolean;
}

export interface JobHandle {
  /** Run now (or right after the run in progress), then go on at the normal pace. */
  kick(): void;
  /** Ends the job: no run starts any more, the one in progress is waited for; the name is free again. */
  stop(): Promise<void>;
  readonly stats: Readonly<JobStats>;
}

interface Job {
  spec: JobSpec;
  stats: JobStats;
  timer: NodeJS.Timeout | undefined;
  current: Promise<void> | undefined;
  again: boolean;
  stopped: boolean;
}

const BACKOFF_CEILING_MS = 5 * 60_000;

export class JobRunner {
  private readonly jobs = new Map<string, Job>();
  private closed = false;
  private readonly stop = new AbortController();

  constructor(private readonly log: FastifyBaseLogger) {}

  /** Starts a job; no other running job may have its name. */
  every(spec: JobSpec): JobHandle {
    if (this.jobs.get(spec.name)?.stopped === false) throw new Error(`job ${spec.name} is already running`);
    const job: Job = {
      spec,
      stats: {
        name: spec.name,
        everyMs: spec.everyMs,
        runs: 0,
        failures: 0,
        failingFor: 0,
        lastDurationMs: 0,
        lastError: undefined,
        running: false,
      },
      timer: undefined,
      current: undefined,
      again: false,
      stopped: false,
    };
    this.jobs.set(spec.name, job);
    this.arm(job, spec.runAtStart ? 0 : spec.everyMs);
    return { kick: () => this.kick(job), stop: () => this.stopJob(job), stats: job.stats };
  }

  /** Every job's numbers, in start order. */
  list(): readonly Readonly<JobStats>[] {
    return [...this.jobs.values()].map((j) => j.stats);
  }

  /** Stops every timer and waits for the runs in progress; nothing starts afterwards. */
  async drain(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    for (const job of this.jobs.values()) clearTimeout(job.timer);
    await Promise.all([...this.jobs.values()].map((j) => j.current));
  }

  private async stopJob(job: Job): Promise<void> {
    job.stopped = true;
    clearTimeout(job.timer);
    await job.current;
    if (this.jobs.get(job.spec.name) === job) this.jobs.delete(job.spec.name);
  }

  private kick(job: Job): void {
    if (this.closed || job.stopped) return;
    if (job.current) {
      job.again = true;
      return;
    }
    this.arm(job, 0);
  }

  private arm(job: Job, delayMs: number): void {
    clearTimeout(job.timer);
    if (this.closed || job.stopped) return;
    job.timer = setTimeout(() => this.start(job), delayMs);
    job.timer.unref();
  }

  private start(job: Job): void {
    job.timer = undefined;
    if (this.closed || job.stopped || job.current) return;
    job.current = this.runOnce(job).finally(() => {
      job.current = undefined;
      job.stats.running = false;
      const again = job.again;
      job.again = false;
      this.arm(job, again ? 0 : this.pause(job));
    });
  }

  private async runOnce(job: Job): Promise<void> {
    const { stats, spec } = job;
    stats.running = true;
    const t0 = performance.now();
    try {
      await spec.run(this.stop.signal);
      stats.failingFor = 0;
      stats.lastError = undefined;
    } catch (err) {
      stats.failures++;
      stats.failingFor++;
      stats.lastError = err instanceof Error ? err.message : String(err);
      // The store restarting is expected now and then: the job backs off and tries again without alarming anyone.
      const level = isStoreUnavailable(err) ? 'debug' : 'warn';
      this.log[level]({ err, job: spec.name, failingFor: stats.failingFor }, `job ${spec.name} failed`);
    } finally {
      stats.runs++;
      stats.lastDurationMs = performance.now() - t0;
    }
  }

  /** The pause before the next run: the normal one, doubled per failure in a row up to the ceiling. */
  private pause(job: Job): number {
    const { everyMs, maxBackoffMs } = job.spec;
    if (!job.stats.failingFor) return everyMs;
    const ceiling = maxBackoffMs ?? Math.min(BACKOFF_CEILING_MS, everyMs * 8);
    return Math.min(Math.max(ceiling, everyMs), everyMs * 2 ** job.stats.failingFor);
  }
}

/**
 * What a heartbeat costs the store: nothing at the time. The latest metrics live in memory (sessions); each node's
 * beats of one minute are averaged into one history row; the rows of finished minutes, the last-seen times and the
 * latest metrics are written in batches on a timer; history older than the retention window is deleted in bounded
 * chunks along the `ts` index. A master killed mid-minute loses at most that minute of history, which is a chart
 * point, not work.
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { JobHandle, JobRunner } from '../../jobs/job-runner.ts';
import type { NodeMetrics } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import {
  deleteMetricsChunk,
  insertMetrics,
  RETENTION_ROWS,
  saveLatestMetrics,
  touchLastSeen,
  type MetricsRow,
} from './node-state.store.ts';

export const MINUTE_MS = 60_000;
/** Time one retention statement should take: on SQLite it holds the master's thread. */
const RETENTION_BUDGET_MS = 10;

/** Rows of the next retention statement: in proportion to how the last one did against its budget, at most 1.5× more. */
export function nextRetentionRows(rows: number, tookMs: number): number {
  const fit = Math.round((rows * RETENTION_BUDGET_MS) / Math.max(tookMs, 0.1));
  return Math.min(RETENTION_ROWS.max, Math.max(RETENTION_ROWS.min, Math.min(fit, Math.ceil(rows * 1.5))));
}
/** How long the per-minute history is kept. */
export const METRICS_RETENTION_MS = 24 * 3600_000;

interface Bucket {
  minute: number;
  beats: number;
  cpu: number;
  mem: number;
  disk: number;
  running: number;
}

/** Store statements issued, by kind: tests and benchmarks check that they do not grow with heartbeats. */
export interface HeartbeatWrites {
  lastSeen: number;
  metricsRows: number;
  latest: number;
  retention: number;
}

const minuteOf = (ts: number) => Math.floor(ts / MINUTE_MS) * MINUTE_MS;
const round = (n: number) => Math.round(n * 100) / 100;

function toRow(nodeId: string, b: Bucket): MetricsRow {
  return {
    node_id: nodeId,
    ts: b.minute,
    cpu: round(b.cpu / b.beats),
    mem: round(b.mem / b.beats),
    disk: round(b.disk / b.beats),
    running: b.running,
  };
}

export class HeartbeatRecorder {
  private readonly buckets = new Map<string, Bucket>();
  private finished: MetricsRow[] = [];
  private heard = new Set<string>();
  private latest = new Map<string, { metrics: NodeMetrics; running: number }>();
  private lastLatestFlush = 0;
  private lastRetention = 0;
  private job: JobHandle | undefined;
  private flushing: Promise<void> | undefined;
  readonly writes: HeartbeatWrites = { lastSeen: 0, metricsRows: 0, latest: 0, retention: 0 };

  constructor(
    private readonly db: Kysely<DB>,
    private readonly log: FastifyBaseLogger,
    /** How often last-seen times and finished minutes reach the store. */
    readonly flushMs: number,
    private readonly retentionMs = METRICS_RETENTION_MS,
    /** Waits, between retention statements, until the store has taken in the last ones (SQLite's checkpoints). */
    private readonly storeCaughtUp: () => Promise<void> = async () => undefined,
  ) {}

  /** Flushes every `flushMs` as the `heartbeats` job. */
  start(jobs: JobRunner): void {
    this.job ??= jobs.every({
      name: 'heartbeats',
      everyMs: this.flushMs,
      run: () => this.writeOnce(Date.now(), false),
    });
  }

  async close(): Promise<void> {
    await this.job?.stop();
    await this.flush(Date.now(), true);
  }

  /** One heartbeat: memory only. */
  record(nodeId: string, m: NodeMetrics, running: number, now: number): void {
    this.heard.add(nodeId);
    this.latest.set(nodeId, { metrics: m, running });
    const minute = minuteOf(now);
    let b = this.buckets.get(nodeId);
    if (b && b.minute !== minute) {
      this.finished.push(toRow(nodeId, b));
      b = undefined;
    }
    if (!b) {
      b = { minute, beats: 0, cpu: 0, mem: 0, disk: 0, running: 0 };
      this.buckets.set(nodeId, b);
    }
    b.beats++;
    b.cpu += m.cpu;
    b.mem += m.mem;
    b.disk += m.disk;
    b.running = Math.max(b.running, m.running);
  }

  /** The minute in progress of a node, as its history row will be (charts show it before it is stored). */
  currentMinute(nodeId: string): MetricsRow | undefined {
    const b = this.buckets.get(nodeId);
    return b && toRow(nodeId, b);
  }

  /** Writes what piled up; one flush at a time. `all`: also the minutes in progress (shutdown). */
  flush(now = Date.now(), all = false): Promise<void> {
    return this.writeOnce(now, all).catch((err: unknown) =>
      this.log.warn({ err }, 'storing node heartbeats failed; retried on the next flush'),
    );
  }

  /** One write at a time; what a failed write could not store is kept for the next. */
  private writeOnce(now: number, all: boolean): Promise<void> {
    this.flushing ??= this.write(now, all).finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async write(now: number, all: boolean): Promise<void> {
    const minute = minuteOf(now);
    for (const [nodeId, b] of this.buckets) {
      if (all || b.minute < minute) {
        this.finished.push(toRow(nodeId, b));
        this.buckets.delete(nodeId);
      }
    }
    const heard = [...this.heard];
    this.heard = new Set();
    if (heard.length) {
      // Not written (the store away): kept for the next flush, since other masters judge the node by this time.
      await touchLastSeen(this.db, heard, now).catch((err: unknown) => {
        for (const id of heard) this.heard.add(id);
        throw err;
      });
      this.writes.lastSeen++;
    }
    if (this.finished.length) {
      const rows = this.finished;
      this.finished = [];
      await insertMetrics(this.db, rows).catch((err: unknown) => {
        this.finished.push(...rows);
        throw err;
      });
      this.writes.metricsRows += rows.length;
    }
    if (all || now - this.lastLatestFlush >= MINUTE_MS) await this.saveLatest(now);
    if (now - this.lastRetention >= MINUTE_MS) await this.retain(now);
  }

  /** The latest metrics and running count, for masters and views that read the node row. */
  private async saveLatest(now: number): Promise<void> {
    this.lastLatestFlush = now;
    const latest = [...this.latest].map(([nodeId, l]) => ({
      nodeId,
      metrics: JSON.stringify(l.metrics),
      running: l.running,
    }));
    this.latest.clear();
    await saveLatestMetrics(this.db, latest);
    this.writes.latest += latest.length;
  }

  /**
   * Deletes history beyond the retention window, a statement at a time, each sized to take about
   * RETENTION_BUDGET_MS, resting as long as each took before the next: a long backlog (days of history left by a
   * store that was off, or loaded) takes at most about half of the master's time while it lasts, and other work never
   * waits long behind one statement.
   */
  async retain(now = Date.now()): Promise<number> {
    this.lastRetention = now;
    let total = 0;
    for (let rows = RETENTION_ROWS.first; ;) {
      const t0 = performance.now();
      const n = await deleteMetricsChunk(this.db, now - this.retentionMs, rows);
      const took = performance.now() - t0;
      this.writes.retention++;
      total += n;
      if (n < rows) return total;
      rows = nextRetentionRows(rows, took);
      await new Promise((resolve) => setTimeout(resolve, took));
      await this.storeCaughtUp();
    }
  }
}

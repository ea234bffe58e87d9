/**
 * Offline detection: every node this master waits to hear from has a deadline (last heard + the offline window),
 * kept in memory and refreshed by any message in O(1); one job (`offline-sweep`) sweeps the deadlines. When a deadline passes the
 * owner decides (runtime.ts): a node another master still hears from gets a new deadline, otherwise it is offline.
 * Nodes this master never heard (joined to another master sharing the store, which is gone now) are found by a
 * second, slower job of its own (`silent-nodes`) that looks at the store's last-seen times (`watchStore`).
 */
import type { FastifyBaseLogger } from 'fastify';
import { isStoreUnavailable } from '../../store/db.ts';
import type { JobHandle, JobRunner } from '../../jobs/job-runner.ts';

export class OfflineSweep {
  private readonly deadlines = new Map<string, number>();
  private sweepJob: JobHandle | undefined;
  private storeJob: JobHandle | undefined;
  /** Until then the store sweep rests: heartbeats could not be stored while the store was away. */
  private quietUntil = 0;
  /** Store sweeps run (tests wait for one to have looked). */
  storeSweeps = 0;

  constructor(
    readonly offlineMs: number,
    private readonly onExpired: (nodeId: string) => Promise<void>,
    private readonly log: FastifyBaseLogger,
    private readonly jobs: JobRunner,
    /** Looks in the store for nodes no master heard within the window (lifecycle.ts). */
    private readonly onStoreSweep: () => Promise<void> = async () => undefined,
  ) {}

  start(): void {
    // A few sweeps per window: a node is declared offline at most a tenth of the window late.
    const everyMs = Math.max(50, Math.min(1000, Math.floor(this.offlineMs / 10)));
    this.sweepJob ??= this.jobs.every({ name: 'offline-sweep', everyMs, run: () => this.sweep() });
  }

  /**
   * Starts the store sweep, once this master watches the nodes it must (after a start, every node gets one window
   * from then first). Five looks a window, at most one every two seconds: a node of a master that is gone is offline
   * within about a window and a fifth of its last heartbeat.
   */
  watchStore(): void {
    const everyMs = Math.max(100, Math.min(2000, Math.floor(this.offlineMs / 5)));
    this.storeJob ??= this.jobs.every({ name: 'silent-nodes', everyMs, run: () => this.sweepStore() });
  }

  async close(): Promise<void> {
    await Promise.all([this.sweepJob?.stop(), this.storeJob?.stop()]);
    this.deadlines.clear();
  }

  private async sweepStore(): Promise<void> {
    if (Date.now() < this.quietUntil) return;
    try {
      await this.onStoreSweep();
      this.storeSweeps++;
    } catch (err) {
      // Heartbeats heard while the store was away were not stored: give every master one window to store them.
      if (isStoreUnavailable(err)) this.quietUntil = Date.now() + this.offlineMs;
      throw err;
    }
  }

  /** The node was heard from (or must be heard from within one window from now). */
  heard(nodeId: string, at = Date.now()): void {
    this.deadlines.set(nodeId, at + this.offlineMs);
  }

  /** Whether this master still waits for the node's offline window to run out. */
  pending(nodeId: string): boolean {
    return this.deadlines.has(nodeId);
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    const expired: string[] = [];
    for (const [nodeId, deadline] of this.deadlines) {
      if (deadline <= now) {
        expired.push(nodeId);
        this.deadlines.delete(nodeId);
      }
    }
    for (const nodeId of expired) {
      try {
        await this.onExpired(nodeId);
      } catch (err) {
        this.log.error({ err, nodeId }, 'marking node offline failed');
        // The store is away (PostgreSQL restarting): decide again later rather than never.
        if (isStoreUnavailable(err) && !this.deadlines.has(nodeId))
          this.heard(nodeId, Date.now() - this.offlineMs + 1000);
      }
    }
  }
}

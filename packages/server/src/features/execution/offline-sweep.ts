/**
 * Offline detection: every node this master waits to hear from has a deadline (last heard + the offline window),
 * kept in memory and refreshed by any message in O(1); one timer sweeps the deadlines. When a deadline passes the
 * owner decides (runtime.ts): a node another master still hears from gets a new deadline, otherwise it is offline.
 * Nodes this master never heard (joined to another master sharing the store, which is gone now) are found by a
 * second, slower sweep of the store's last-seen times (`watchStore`).
 */
import type { FastifyBaseLogger } from 'fastify';
import { isStoreUnavailable } from '../../store/db.ts';

export class OfflineSweep {
  private readonly deadlines = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private storeTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private sweepingStore = false;
  /** Until then the store sweep rests: heartbeats could not be stored while the store was away. */
  private quietUntil = 0;
  /** Store sweeps run (tests wait for one to have looked). */
  storeSweeps = 0;

  constructor(
    readonly offlineMs: number,
    private readonly onExpired: (nodeId: string) => Promise<void>,
    private readonly log: FastifyBaseLogger,
    /** Looks in the store for nodes no master heard within the window (lifecycle.ts). */
    private readonly onStoreSweep: () => Promise<void> = async () => undefined,
  ) {}

  start(): void {
    if (this.timer) return;
    // A few sweeps per window: a node is declared offline at most a tenth of the window late.
    const every = Math.max(50, Math.min(1000, Math.floor(this.offlineMs / 10)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  /**
   * Starts the store sweep, once this master watches the nodes it must (after a start, every node gets one window
   * from then first). Five looks a window, at most one every two seconds: a node of a master that is gone is offline
   * within about a window and a fifth of its last heartbeat.
   */
  watchStore(): void {
    if (this.storeTimer) return;
    const every = Math.max(100, Math.min(2000, Math.floor(this.offlineMs / 5)));
    this.storeTimer = setInterval(() => void this.sweepStore(), every);
    this.storeTimer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    clearInterval(this.storeTimer);
    this.deadlines.clear();
  }

  private async sweepStore(): Promise<void> {
    if (this.sweepingStore || Date.now() < this.quietUntil) return;
    this.sweepingStore = true;
    try {
      await this.onStoreSweep();
      this.storeSweeps++;
    } catch (err) {
      this.log.warn({ err }, 'looking for silent nodes in the store failed');
      // Heartbeats heard while the store was away were not stored: give every master one window to store them.
      if (isStoreUnavailable(err)) this.quietUntil = Date.now() + this.offlineMs;
    } finally {
      this.sweepingStore = false;
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
    if (this.sweeping) return;
    this.sweeping = true;
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
    this.sweeping = false;
  }
}

/**
 * Offline detection: every node this master waits to hear from has a deadline (last heard + the offline window),
 * kept in memory and refreshed by any message in O(1); one timer sweeps the deadlines. When a deadline passes the
 * owner decides (runtime.ts): a node another master still hears from gets a new deadline, otherwise it is offline.
 */
import type { FastifyBaseLogger } from 'fastify';
import { isStoreUnavailable } from '../../store/db.ts';

export class OfflineSweep {
  private readonly deadlines = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    readonly offlineMs: number,
    private readonly onExpired: (nodeId: string) => Promise<void>,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    if (this.timer) return;
    // A few sweeps per window: a node is declared offline at most a tenth of the window late.
    const every = Math.max(50, Math.min(1000, Math.floor(this.offlineMs / 10)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.deadlines.clear();
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

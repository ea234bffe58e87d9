/**
 * The outbox: every delivery waiting for its next attempt (a webhook call, a notification to a channel) is a row in
 * the store, so retries in backoff survive a master restart. A master attempts a row only after claiming it with a
 * conditional update (a lease), so masters sharing one PostgreSQL database never attempt the same delivery at once;
 * a lease left by a master that died mid-attempt expires and the delivery is taken up again. Each kind of delivery
 * has its own named job (one Outbox) over the rows of its kind.
 */
import { WEBHOOK_MAX_RETRIES } from '@crawldeck/shared';
import type { AppContext } from '../context.ts';
import {
  addToOutbox,
  dueOutboxIds,
  findOutboxRow,
  leaseOutboxRow,
  nextOutboxTime,
  releaseOutboxRow,
  removeFromOutbox,
  type NewOutboxRow,
  type OutboxKind,
  type OutboxRow,
} from './outbox.store.ts';

export type { OutboxRow, OutboxKind };

/**
 * One attempt of a delivery: `ok: false` with `aborted` means the master stopped it (not counted); `gone` means its
 * target no longer exists (the delivery is dropped).
 */
export type Attempt = (row: OutboxRow) => Promise<{ ok: boolean; aborted: boolean; gone?: boolean }>;

/** How often a master looks for deliveries it did not queue itself (another master's expired lease). */
const SWEEP_MS = 5000;
const BATCH = 50;

export class Outbox {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private closed = false;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private ctx: AppContext,
    private kind: OutboxKind,
    private backoffMs: number,
    /** A claim outlives the longest attempt (its timeout) with a margin for logging it. */
    private leaseMs: number,
    private attempt: Attempt,
  ) {}

  private get db() {
    return this.ctx.store.db;
  }

  /** Stores new deliveries (first attempt due now) and starts them. */
  async add(rows: NewOutboxRow[]): Promise<void> {
    if (!rows.length) return;
    await addToOutbox(this.db, this.kind, rows, Date.now());
    this.kick();
  }

  /** Looks for due deliveries now (single flight: a kick during a pass runs one more pass). */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.pass()
      .catch((err: unknown) => {
        this.ctx.log.error({ err, kind: this.kind }, 'outbox pass failed');
        return Date.now() + SWEEP_MS;
      })
      .then((next) => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.kick();
        } else this.wakeAt(next);
      });
  }

  private wakeAt(ts: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.min(Math.max(ts - Date.now(), 10), SWEEP_MS);
    this.timer = setTimeout(() => this.kick(), delay);
    this.timer.unref();
  }

  /** Claims and starts every due delivery; answers when the next one falls due. */
  private async pass(): Promise<number> {
    const now = Date.now();
    const due = await dueOutboxIds(this.db, this.kind, now, BATCH);
    for (const id of due) {
      if (this.closed) break;
      if (await leaseOutboxRow(this.db, id, now, this.leaseMs)) this.track(this.run(id));
    }
    if (due.length === BATCH) return now;
    return (await nextOutboxTime(this.db, this.kind)) ?? now + SWEEP_MS;
  }

  private track(p: Promise<void>): void {
    const t = p
      .catch((err: unknown) => this.ctx.log.error({ err, kind: this.kind }, 'outbox delivery failed'))
      .finally(() => this.inFlight.delete(t));
    this.inFlight.add(t);
  }

  /** One attempt of a claimed delivery, then: done (delivered or out of retries), or due again after the backoff. */
  private async run(id: string): Promise<void> {
    const row = await findOutboxRow(this.db, id);
    if (!row) return;
    const r = await this.attempt(row);
    if (r.gone || r.ok || (!r.aborted && row.attempt > WEBHOOK_MAX_RETRIES)) {
      await removeFromOutbox(this.db, id);
    } else if (r.aborted) {
      // Stopped by a shutdown: free it for the next master, the same attempt again.
      await releaseOutboxRow(this.db, id);
    } else {
      await releaseOutboxRow(this.db, id, {
        attempt: row.attempt + 1,
        due: Date.now() + this.backoffMs * 2 ** (row.attempt - 1),
      });
    }
    this.kick();
  }

  /** Stops looking for work and waits for the attempts under way (the caller aborts their requests first). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }
}

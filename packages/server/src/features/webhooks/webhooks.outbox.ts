/**
 * The webhook outbox: every delivery waiting for its next attempt is a row in the store, so retries in backoff
 * survive a master restart. A master attempts a row only after claiming it with a conditional update (a lease), so
 * masters sharing one PostgreSQL database never attempt the same delivery at once; a lease left by a master that
 * died mid-attempt expires and the delivery is taken up again.
 */
import { WEBHOOK_MAX_RETRIES } from '@crawldeck/shared';
import type { ExpressionBuilder, Selectable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { DB } from '../../store/schema.ts';

export type OutboxRow = Selectable<DB['webhook_outbox']>;
type WebhookRow = Selectable<DB['webhooks']>;

/** One attempt of a delivery; `ok: false` with `aborted` means the master stopped it (not counted). */
export type Attempt = (hook: WebhookRow, row: OutboxRow) => Promise<{ ok: boolean; aborted: boolean }>;

/** How often a master looks for deliveries it did not queue itself (another master's expired lease). */
const SWEEP_MS = 5000;
const BATCH = 50;

export class WebhookOutbox {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private closed = false;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private ctx: AppContext,
    private backoffMs: number,
    /** A claim outlives the longest attempt (its timeout) with a margin for logging it. */
    private leaseMs: number,
    private attempt: Attempt,
  ) {}

  private get db() {
    return this.ctx.store.db;
  }

  /** Stores new deliveries (first attempt due now) and starts them. */
  async add(rows: Pick<OutboxRow, 'id' | 'webhook_id' | 'event' | 'body'>[]): Promise<void> {
    if (!rows.length) return;
    const now = Date.now();
    await this.db
      .insertInto('webhook_outbox')
      .values(rows.map((r) => ({ ...r, attempt: 1, due_ts: now, lease_ts: null, create_ts: now })))
      .execute();
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
        this.ctx.log.error({ err }, 'webhook outbox pass failed');
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
    const free = (eb: ExpressionBuilder<DB, 'webhook_outbox'>) =>
      eb.or([eb('lease_ts', 'is', null), eb('lease_ts', '<', now)]);
    const due = await this.db
      .selectFrom('webhook_outbox')
      .select('id')
      .where('due_ts', '<=', now)
      .where(free)
      .orderBy('due_ts')
      .limit(BATCH)
      .execute();
    for (const { id } of due) {
      if (this.closed) break;
      const claimed = await this.db
        .updateTable('webhook_outbox')
        .set({ lease_ts: now + this.leaseMs })
        .where('id', '=', id)
        .where('due_ts', '<=', now)
        .where(free)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) > 0) this.track(this.run(id));
    }
    if (due.length === BATCH) return now;
    const next = await this.db
      .selectFrom('webhook_outbox')
      .select((eb) => eb.fn.min<number>(eb.fn.coalesce('lease_ts', 'due_ts')).as('ts'))
      .executeTakeFirst();
    return next?.ts == null ? now + SWEEP_MS : Number(next.ts);
  }

  private track(p: Promise<void>): void {
    const t = p
      .catch((err: unknown) => this.ctx.log.error({ err }, 'webhook delivery failed'))
      .finally(() => this.inFlight.delete(t));
    this.inFlight.add(t);
  }

  /** One attempt of a claimed delivery, then: done (delivered or out of retries), or due again after the backoff. */
  private async run(id: string): Promise<void> {
    const row = await this.db.selectFrom('webhook_outbox').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return;
    const hook = await this.db.selectFrom('webhooks').selectAll().where('id', '=', row.webhook_id).executeTakeFirst();
    if (!hook) {
      await this.db.deleteFrom('webhook_outbox').where('id', '=', id).execute();
      return;
    }
    const r = await this.attempt(hook, row);
    if (r.ok || (!r.aborted && row.attempt > WEBHOOK_MAX_RETRIES)) {
      await this.db.deleteFrom('webhook_outbox').where('id', '=', id).execute();
    } else if (r.aborted) {
      // Stopped by a shutdown: free it for the next master, the same attempt again.
      await this.db.updateTable('webhook_outbox').set({ lease_ts: null }).where('id', '=', id).execute();
    } else {
      const due = Date.now() + this.backoffMs * 2 ** (row.attempt - 1);
      await this.db
        .updateTable('webhook_outbox')
        .set({ attempt: row.attempt + 1, due_ts: due, lease_ts: null })
        .where('id', '=', id)
        .execute();
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

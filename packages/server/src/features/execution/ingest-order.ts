/**
 * Puts the batches of one task's log (or items) in order on this master. A node keeps several batches of a task
 * in flight at once; they may arrive out of order. The store refuses a batch that starts after its stored offset
 * (a gap), so a batch that came before its predecessor waits here, briefly, until a batch of the same stream
 * stored on this master reaches its start, then is stored. A batch whose predecessor is in hand here waits for it
 * before it asks the store at all, so the batches of a task take the task's lock in their order instead of being
 * refused and tried again. Batches of different tasks never wait for each other.
 * Waiting is only an optimisation: the store's offset check keeps ingest exactly-once on its own, and a batch
 * whose predecessor does not come in time is answered with the stored offset, from which the node ships again.
 */

/** The batches of one stream (a task's log or items) being ingested on this master right now. */
interface Lane {
  /** Highest offset this master has seen stored for the stream while it had batches of it in hand. */
  stored: number;
  inFlight: number;
  /** Where the batches in hand start. */
  froms: number[];
  waiters: { from: number; wake: () => void }[];
}

export interface IngestOrderStats {
  /** The most batches of one stream this master has held at once. */
  maxInFlight: number;
  /** Batches that arrived before their predecessor was stored and waited for it. */
  waited: number;
  /** Batches answered with a stored offset below their start after waiting in vain. */
  refused: number;
}

export class IngestOrder {
  private lanes = new Map<string, Lane>();
  /** Batches per stream that began to arrive and are not answered yet. */
  private arriving = new Map<string, number>();
  readonly stats: IngestOrderStats = { maxInFlight: 0, waited: 0, refused: 0 };

  /** `waitMs`: how long a batch waits for its predecessor before it is answered with the stored offset. */
  constructor(private waitMs: number) {}

  /**
   * Runs `store` for a batch starting at `from`; when the store answers with an offset below `from` (the
   * predecessor is not stored yet), waits for it and runs `store` again. `store` answers undefined for a task
   * that is gone.
   */
  async inOrder<R extends { acked: number }>(
    stream: string,
    from: number,
    store: () => Promise<R | undefined>,
  ): Promise<R | undefined> {
    const lane = this.enter(stream, from);
    const deadline = Date.now() + this.waitMs;
    let counted = false;
    const wait = () => {
      if (!counted) this.stats.waited++;
      counted = true;
      return this.waitFor(lane, from, deadline - Date.now());
    };
    try {
      // Its predecessor is in hand here: it goes first, so the batches take the task's lock in their order.
      if (this.behind(lane, from)) await wait();
      for (;;) {
        const r = await store();
        if (!r) return r;
        this.advance(lane, r.acked);
        if (r.acked >= from) return r;
        if (!(await wait())) {
          this.stats.refused++;
          return r;
        }
      }
    } finally {
      this.leave(stream, lane, from);
    }
  }

  /** Whether a batch of the lane that starts before `from` is in hand while the stored offset is below it. */
  private behind(lane: Lane, from: number): boolean {
    return lane.stored < from && lane.froms.some((f) => f < from);
  }

  /**
   * A batch of `stream` began to arrive (its body may still be on its way): counted until it is answered, so the
   * batches a node keeps in flight show here even where storing one takes a single turn of the event loop.
   */
  arrived(stream: string): void {
    const n = (this.arriving.get(stream) ?? 0) + 1;
    this.arriving.set(stream, n);
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, n);
  }

  answered(stream: string): void {
    const n = (this.arriving.get(stream) ?? 1) - 1;
    if (n > 0) this.arriving.set(stream, n);
    else this.arriving.delete(stream);
  }

  private enter(stream: string, from: number): Lane {
    let lane = this.lanes.get(stream);
    if (!lane) {
      lane = { stored: 0, inFlight: 0, froms: [], waiters: [] };
      this.lanes.set(stream, lane);
    }
    lane.inFlight++;
    lane.froms.push(from);
    return lane;
  }

  /** A batch answered: waiters that no longer have a predecessor in hand try the store (it may have failed). */
  private leave(stream: string, lane: Lane, from: number): void {
    lane.froms.splice(lane.froms.indexOf(from), 1);
    if (--lane.inFlight === 0) this.lanes.delete(stream);
    const ready = lane.waiters.filter((w) => !this.behind(lane, w.from));
    if (!ready.length) return;
    lane.waiters = lane.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.wake();
  }

  private advance(lane: Lane, stored: number): void {
    if (stored <= lane.stored) return;
    lane.stored = stored;
    const ready = lane.waiters.filter((w) => w.from <= stored);
    lane.waiters = lane.waiters.filter((w) => w.from > stored);
    for (const w of ready) w.wake();
  }

  /** Resolves true once the stream's stored offset reaches `from`, false after `ms`. */
  private waitFor(lane: Lane, from: number, ms: number): Promise<boolean> {
    if (lane.stored >= from) return Promise.resolve(true);
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        from,
        wake: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        lane.waiters = lane.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      lane.waiters.push(waiter);
    });
  }
}

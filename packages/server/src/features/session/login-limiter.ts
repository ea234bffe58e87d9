/**
 * Sign-in throttling with growing delays. Failures are counted per (username, address): an attacker hammering a
 * username from one address slows only that pair, so the real owner signing in from elsewhere is never held up.
 * A looser budget per address alone slows one address spraying many usernames, again only by a bounded delay.
 * In memory: each master guards itself, which bounds guessing per master. The address is the client's own only
 * when the reverse proxies in front of the master are listed as trusted; behind an unlisted proxy all visitors
 * share its address.
 */
export interface ThrottleOptions {
  /** Failures allowed without any delay. */
  freeFailures: number;
  /** Longest wait between two attempts once delays apply, in ms. */
  maxDelayMs: number;
}

interface Entry {
  failures: number;
  last: number;
}

// First delay once the free failures are spent; it doubles with each further failure up to maxDelayMs.
const FIRST_DELAY_MS = 1000;
// Failures older than this are forgotten.
const FORGET_MS = 60 * 60_000;
// Bounds memory when someone sprays names and addresses.
const MAX_ENTRIES = 100_000;
// An address alone gets this many times the pair budget before it is slowed.
const ADDRESS_FACTOR = 10;

export class LoginThrottle {
  private entries = new Map<string, Entry>();

  constructor(private readonly opts: ThrottleOptions) {}

  private keys(username: string, address: string): [string, number][] {
    return [
      [`p:${username.toLowerCase()}\n${address}`, this.opts.freeFailures],
      [`a:${address}`, this.opts.freeFailures * ADDRESS_FACTOR],
    ];
  }

  private delayFor(entry: Entry | undefined, free: number): number {
    if (!entry || entry.failures < free) return 0;
    return Math.min(this.opts.maxDelayMs, FIRST_DELAY_MS * 2 ** Math.min(30, entry.failures - free));
  }

  /** Seconds until this (username, address) may try again, or 0 when allowed now. */
  retryAfter(username: string, address: string, now = Date.now()): number {
    let wait = 0;
    for (const [key, free] of this.keys(username, address)) {
      const e = this.entries.get(key);
      if (e && now - e.last > FORGET_MS) {
        this.entries.delete(key);
        continue;
      }
      wait = Math.max(wait, (e?.last ?? 0) + this.delayFor(e, free) - now);
    }
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  fail(username: string, address: string, now = Date.now()): void {
    for (const [key] of this.keys(username, address)) {
      const e = this.entries.get(key);
      this.entries.delete(key);
      this.entries.set(key, { failures: (e && now - e.last <= FORGET_MS ? e.failures : 0) + 1, last: now });
    }
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  succeed(username: string, address: string): void {
    this.entries.delete(this.keys(username, address)[0][0]);
  }
}

/** At most `limit` events per key in a sliding window (sign-ups per address). */
export class WindowLimiter {
  private events = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Records an attempt; returns seconds to wait when over the limit (the attempt is then not recorded), else 0. */
  take(key: string, now = Date.now()): number {
    const list = (this.events.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length >= this.limit) {
      this.events.set(key, list);
      return Math.max(1, Math.ceil((list[0] + this.windowMs - now) / 1000));
    }
    list.push(now);
    this.events.delete(key);
    this.events.set(key, list);
    while (this.events.size > MAX_ENTRIES) this.events.delete(this.events.keys().next().value!);
    return 0;
  }
}

/**
 * Counts failed logins per username and per client address in a sliding window and refuses further attempts
 * once either passes its limit. In memory: each master guards itself, which bounds guessing per master.
 */
export class LoginLimiter {
  private failures = new Map<string, number[]>();

  constructor(
    private readonly windowMs = 15 * 60_000,
    private readonly perUsername = 10,
    private readonly perAddress = 50,
  ) {}

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Seconds until the caller may try again, or 0 when allowed. */
  retryAfter(username: string, address: string, now = Date.now()): number {
    const checks: [string, number][] = [
      [`u:${username.toLowerCase()}`, this.perUsername],
      [`a:${address}`, this.perAddress],
    ];
    let wait = 0;
    for (const [key, limit] of checks) {
      const list = this.recent(key, now);
      if (list.length >= limit) wait = Math.max(wait, Math.ceil((list[0] + this.windowMs - now) / 1000));
    }
    return wait;
  }

  fail(username: string, address: string, now = Date.now()): void {
    for (const key of [`u:${username.toLowerCase()}`, `a:${address}`]) {
      this.failures.set(key, [...this.recent(key, now), now]);
    }
  }

  succeed(username: string): void {
    this.failures.delete(`u:${username.toLowerCase()}`);
  }
}

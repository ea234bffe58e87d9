import { describe, expect, it } from 'vitest';
import { LoginThrottle, WindowLimiter } from './login-limiter.ts';

describe('LoginThrottle', () => {
  it('lets the free failures through, then doubles the wait up to the maximum', () => {
    const th = new LoginThrottle({ freeFailures: 2, maxDelayMs: 8000 });
    let now = 1_000_000;
    th.fail('bob', '10.0.0.1', now);
    th.fail('bob', '10.0.0.1', now);
    expect(th.retryAfter('bob', '10.0.0.1', now)).toBe(1);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      now += 60_000;
      th.fail('bob', '10.0.0.1', now);
      waits.push(th.retryAfter('bob', '10.0.0.1', now));
    }
    expect(waits).toEqual([2, 4, 8, 8, 8, 8]);
    expect(th.retryAfter('bob', '10.0.0.1', now + 8000)).toBe(0);
  });

  it('never slows the same username from another address, and a success clears the pair', () => {
    const th = new LoginThrottle({ freeFailures: 1, maxDelayMs: 60_000 });
    for (let i = 0; i < 5; i++) th.fail('Bob', '10.0.0.1', 1000);
    expect(th.retryAfter('bob', '10.0.0.1', 1000)).toBeGreaterThan(0);
    expect(th.retryAfter('bob', '10.0.0.2', 1000)).toBe(0);
    th.succeed('bob', '10.0.0.1');
    expect(th.retryAfter('bob', '10.0.0.1', 1000)).toBe(0);
  });

  it('slows one address spraying many usernames only after a larger budget', () => {
    const th = new LoginThrottle({ freeFailures: 1, maxDelayMs: 60_000 });
    for (let i = 0; i < 9; i++) th.fail(`u${i}`, '10.0.0.9', 1000);
    expect(th.retryAfter('fresh', '10.0.0.9', 1000)).toBe(0);
    th.fail('u9', '10.0.0.9', 1000);
    expect(th.retryAfter('fresh', '10.0.0.9', 1000)).toBe(1);
    expect(th.retryAfter('fresh', '10.0.0.8', 1000)).toBe(0);
  });
});

describe('WindowLimiter', () => {
  it('allows the limit per window and key', () => {
    const w = new WindowLimiter(2, 3600_000);
    expect(w.take('a', 0)).toBe(0);
    expect(w.take('a', 1)).toBe(0);
    expect(w.take('a', 2)).toBe(3600);
    expect(w.take('b', 2)).toBe(0);
    expect(w.take('a', 3600_000)).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { StatsForwarder, isValidStatsEndpoint } from './stats-forwarder.ts';

const log = pino({ level: 'silent' });

describe('stats forwarder', () => {
  it('accepts only http(s) endpoints or empty', () => {
    expect(isValidStatsEndpoint('')).toBe(true);
    expect(isValidStatsEndpoint('https://stats.example.com/c')).toBe(true);
    expect(isValidStatsEndpoint('http://10.0.0.1:8080')).toBe(true);
    expect(isValidStatsEndpoint('ftp://x')).toBe(false);
    expect(isValidStatsEndpoint('javascript:alert(1)')).toBe(false);
    expect(isValidStatsEndpoint('not a url')).toBe(false);
  });

  it('posts JSON, swallows failures and drops events beyond 20 in flight', async () => {
    const calls: { url: string; body: string }[] = [];
    const pending: (() => void)[] = [];
    const fake = ((url: string, init: RequestInit) => {
      calls.push({ url, body: String(init.body) });
      return new Promise<Response>((resolve) => pending.push(() => resolve(new Response('ok'))));
    }) as unknown as typeof fetch;
    const f = new StatsForwarder(log, fake);
    expect(f.forward('', { type: 'x' })).toBeUndefined();
    const runs = Array.from({ length: 25 }, (_, i) => f.forward('http://s/c', { type: 'visit', i }));
    expect(calls).toHaveLength(20);
    expect(f.dropped).toBe(5);
    expect(JSON.parse(calls[0].body)).toEqual({ type: 'visit', i: 0 });
    pending.forEach((p) => p());
    await Promise.all(runs);
    const failing = new StatsForwarder(log, (() => Promise.reject(new Error('down'))) as unknown as typeof fetch);
    await expect(failing.forward('http://s/c', { type: 'x' })).resolves.toBeUndefined();
  });
});

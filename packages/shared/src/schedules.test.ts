import { describe, expect, it } from 'vitest';
import { CRON_PREVIEW_MAX, cronWithoutSeconds, isValidTimezone, nextCronRuns, validateCron } from './schedules.ts';
import { renderWebhookTemplate, validateWebhookUrl } from './webhooks.ts';

describe('cron rule: six fields, seconds first', () => {
  it('accepts 6-field expressions', () => {
    for (const c of [
      '* * * * * *',
      '*/2 * * * * *',
      '0 30 2 * * *',
      '0 0 12 * * 1-5',
      '0 0 0 L * *',
      '0 0 9 * * MON',
      ' 0  0 0 * * * ',
    ])
      expect(validateCron(c), c).toBeNull();
  });
  it('refuses 5/7 fields, out-of-range values, garbage and never-firing expressions with a message', () => {
    expect(validateCron('* * * * *')).toMatch(/expected 6 fields.*got 5/);
    expect(validateCron('0 0 0 * * * 2030')).toMatch(/got 7/);
    expect(validateCron('60 * * * * *')).toMatch(/second field "60"/);
    expect(validateCron('0 0 0 * * 8')).toMatch(/day of week field "8"/);
    expect(validateCron('x y z a b c')).toMatch(/Invalid cron expression/);
    expect(validateCron('0 0 0 30 2 *')).toMatch(/never fires/);
    expect(validateCron('')).toMatch(/required/);
    expect(validateCron(undefined)).toMatch(/required/);
    expect(validateCron('0 0 0 * * *', 'Nowhere/City')).toMatch(/time zone/);
  });
  it('computes next runs in the given zone and drops the seconds for display', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    expect(nextCronRuns('0 30 2 * * *', 2, 'Asia/Shanghai', from).map((d) => d.toISOString())).toEqual([
      '2026-01-01T18:30:00.000Z',
      '2026-01-02T18:30:00.000Z',
    ]);
    expect(nextCronRuns('*/2 * * * * *', 3, 'UTC', from).map((d) => d.getTime() - from.getTime())).toEqual([
      2000, 4000, 6000,
    ]);
    expect(nextCronRuns('bad', 3)).toEqual([]);
    expect(cronWithoutSeconds('0 30 2 * * *')).toBe('30 2 * * *');
    expect(isValidTimezone('UTC')).toBe(true);
    expect(isValidTimezone('')).toBe(false);
  });
});

describe('webhook rules', () => {
  it('requires an http(s) URL', () => {
    expect(validateWebhookUrl('')).toBe('A webhook URL is required');
    expect(validateWebhookUrl('ftp://x')).toMatch(/http/);
    expect(validateWebhookUrl('javascript:alert(1)')).toMatch(/http/);
    expect(validateWebhookUrl('https://hooks.example.com/a?b=1')).toBeNull();
  });
  it('fills placeholders JSON-escaped inside strings and as JSON values outside', () => {
    const vars = { task: { id: 't1', status: 'error', error: 'bad "quote"\n\\path', n: 3, none: null } };
    const out = renderWebhookTemplate(
      '{"msg": "{{task.id}}: {{ task.error }}", "n": {{task.n}}, "x": {{task.none}}, "y": {{task.missing}}, "esc": "a\\"{{task.status}}"}',
      vars,
    );
    expect(JSON.parse(out)).toEqual({ msg: 't1: bad "quote"\n\\path', n: 3, x: null, y: null, esc: 'a"error' });
    expect(() => renderWebhookTemplate('{"a": {{task.id}', vars)).toThrow();
    expect(() => renderWebhookTemplate('not json', vars)).toThrow();
  });
});

describe('cron preview bounds', () => {
  it('lists at most CRON_PREVIEW_MAX fire times, whatever count is asked', () => {
    const from = new Date('2030-01-01T00:00:00Z');
    for (const n of [Infinity, 1e20, Number.MAX_SAFE_INTEGER])
      expect(nextCronRuns('0 * * * * *', n, 'UTC', from)).toHaveLength(CRON_PREVIEW_MAX);
    expect(nextCronRuns('0 * * * * *', NaN, 'UTC', from)).toHaveLength(CRON_PREVIEW_MAX);
    expect(nextCronRuns('0 * * * * *', -3, 'UTC', from)).toHaveLength(0);
    expect(nextCronRuns('0 * * * * *', 2.7, 'UTC', from)).toHaveLength(2);
  });
});

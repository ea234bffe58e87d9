import { describe, expect, it } from 'vitest';
import { cronForList } from './cron.ts';

describe('the cron shown in the schedule list', () => {
  it('leaves out a seconds field of 0 and keeps any other', () => {
    expect(cronForList('0 30 2 * * *')).toBe('30 2 * * *');
    expect(cronForList('*/10 * * * * *')).toBe('*/10 * * * * *');
    expect(cronForList(' 30  0 * * * 1 ')).toBe('30 0 * * * 1');
    expect(cronForList('30 2 * * *')).toBe('30 2 * * *');
  });
});

import { describe, expect, it } from 'vitest';
import { lastDays } from './stats.ts';

describe('lastDays', () => {
  it('lists the last N calendar days ending today, oldest first', () => {
    const now = Date.UTC(2026, 2, 2, 12);
    expect(lastDays(now, 3)).toEqual(['2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('uses the given offset east of UTC', () => {
    const now = Date.UTC(2026, 0, 1, 20); // 04:00 on 2 January in UTC+8
    expect(lastDays(now, 1, 480)).toEqual(['2026-01-02']);
    expect(lastDays(now, 1, -300)).toEqual(['2026-01-01']);
  });
});

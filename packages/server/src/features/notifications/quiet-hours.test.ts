import { describe, expect, it } from 'vitest';
import { inQuietHours } from './notifications.service.ts';

const at = (hh: number, mm: number) => new Date(2026, 0, 1, hh, mm);

describe('quiet hours', () => {
  it('hold between start and end, the end itself not included', () => {
    const rule = { quiet_start: '09:30', quiet_end: '17:00' };
    expect(inQuietHours(rule, at(9, 29))).toBe(false);
    expect(inQuietHours(rule, at(9, 30))).toBe(true);
    expect(inQuietHours(rule, at(16, 59))).toBe(true);
    expect(inQuietHours(rule, at(17, 0))).toBe(false);
  });

  it('may cross midnight', () => {
    const rule = { quiet_start: '22:00', quiet_end: '07:00' };
    expect(inQuietHours(rule, at(23, 10))).toBe(true);
    expect(inQuietHours(rule, at(0, 0))).toBe(true);
    expect(inQuietHours(rule, at(6, 59))).toBe(true);
    expect(inQuietHours(rule, at(7, 0))).toBe(false);
    expect(inQuietHours(rule, at(21, 59))).toBe(false);
  });

  it('are off when not set', () => {
    expect(inQuietHours({ quiet_start: '', quiet_end: '' }, at(3, 0))).toBe(false);
  });
});

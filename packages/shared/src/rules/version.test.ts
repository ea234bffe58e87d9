import { describe, expect, it } from 'vitest';
import { isNewerVersion } from './version.ts';

describe('isNewerVersion: is the latest release newer than the running one', () => {
  it('compares numeric parts, not strings', () => {
    expect(isNewerVersion('1.10', '1.2')).toBe(true);
    expect(isNewerVersion('1.2', '1.10')).toBe(false);
    expect(isNewerVersion('0.9.10', '0.9.9')).toBe(true);
  });

  it('decides at the first difference, left to right', () => {
    expect(isNewerVersion('2.0.0', '1.9.9')).toBe(true);
    expect(isNewerVersion('1.9.9', '2.0.0')).toBe(false);
    expect(isNewerVersion('1.3.0', '1.2.99')).toBe(true);
  });

  it('is false for equal versions', () => {
    expect(isNewerVersion('4.0.0', '4.0.0')).toBe(false);
    expect(isNewerVersion('v4.0.0', '4.0.0')).toBe(false);
  });

  it('counts missing parts as 0', () => {
    expect(isNewerVersion('4', '4.0.0')).toBe(false);
    expect(isNewerVersion('4.0', '4.0.1')).toBe(false);
    expect(isNewerVersion('4.0.0.1', '4.0')).toBe(true);
    expect(isNewerVersion('4.1', '4.0.9')).toBe(true);
  });

  it('counts non-numeric parts as 0', () => {
    expect(isNewerVersion('4.x', '4.0')).toBe(false);
    expect(isNewerVersion('4.0.beta', '4.0.0')).toBe(false);
    expect(isNewerVersion('4.x.1', '4.0.0')).toBe(true);
    expect(isNewerVersion('5.0-rc1', '5.0.0')).toBe(false);
  });

  it('ignores a leading v on either side', () => {
    expect(isNewerVersion('v99.0.0', '4.0.0')).toBe(true);
    expect(isNewerVersion('v4.0.1', 'v4.0.0')).toBe(true);
    expect(isNewerVersion('V4.0.0', '4.0.1')).toBe(false);
  });

  it('is false when either version is unknown', () => {
    expect(isNewerVersion(undefined, '4.0.0')).toBe(false);
    expect(isNewerVersion('', '4.0.0')).toBe(false);
    expect(isNewerVersion('v99.0.0', null)).toBe(false);
    expect(isNewerVersion('v99.0.0', '')).toBe(false);
  });
});

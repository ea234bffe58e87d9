import { describe, expect, it } from 'vitest';
import { columnName, fits, kindOf, widen, withoutNul } from './columns.ts';

describe('item fields as columns', () => {
  it('takes the kind of the first value', () => {
    expect([true, 3, 3.5, 'x', { a: 1 }, [1], null].map(kindOf)).toEqual([
      'boolean',
      'bigint',
      'double',
      'text',
      'json',
      'json',
      undefined,
    ]);
    expect(kindOf(2 ** 60)).toBe('double');
  });

  it('widens a column instead of refusing a value', () => {
    expect(fits('bigint', 2.5)).toBe(false);
    expect(widen('bigint', 2.5)).toBe('double');
    expect(fits('double', 7)).toBe(true);
    expect(fits('boolean', 'yes')).toBe(false);
    expect(widen('boolean', 'yes')).toBe('text');
    expect(widen('bigint', 'm7')).toBe('text');
    expect(fits('json', 'a string')).toBe(true);
    expect(fits('text', { a: 1 })).toBe(true);
  });

  it('names columns within 63 bytes, away from our own columns, without NUL', () => {
    expect(columnName('_id')).toBe('item_id');
    expect(columnName('_seq')).toBe('item_seq');
    expect(columnName('')).toBe('_empty');
    expect(columnName('trailing  ')).toBe('trailing');
    const long = columnName('标题'.repeat(40));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(63);
    expect(long).toBe('标题'.repeat(10) + '标');
    expect(columnName('a\u0000b')).toBe('a\uFFFDb');
  });

  it('replaces NUL in nested strings and keys', () => {
    expect(withoutNul({ 'k\u0000': ['a\u0000', { b: 'c\u0000' }], n: 1 })).toEqual({
      'k\uFFFD': ['a\uFFFD', { b: 'c\uFFFD' }],
      n: 1,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { csvRecord } from './results.export.ts';

describe('CSV records of an export', () => {
  it('writes what csv-stringify writes, quotes, commas, line breaks and non-ASCII included', () => {
    const rows: Array<Array<string | number>> = [
      ['plain', 1, 2.5, -3],
      ['with, comma', 'with "quotes"', 'line\nbreak', 'carriage\rreturn', '"'],
      ['标题', '', ' spaced ', 'a""b', '{"k":"v, w"}'],
    ];
    for (const row of rows) expect(csvRecord(row)).toBe(stringify([row]));
  });
});

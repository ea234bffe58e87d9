import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv } from './csv.ts';

describe('parseCsv', () => {
  it('reads plain rows with CRLF and LF, skipping blank lines and a BOM', () => {
    expect(parseCsv('\ufeffa,b\r\n1,2\n\n3,\n')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
      { line: 4, fields: ['3', ''] },
    ]);
  });

  it('reads quoted fields with commas, escaped quotes and newlines', () => {
    const rows = parseCsv('x,"a, ""b""\nc",y\nnext,1,2');
    expect(rows[0]).toEqual({ line: 1, fields: ['x', 'a, "b"\nc', 'y'] });
    expect(rows[1]).toEqual({ line: 3, fields: ['next', '1', '2'] });
  });

  it('keeps a quoted empty field and a last line without newline', () => {
    expect(parseCsv('""')).toEqual([{ line: 1, fields: [''] }]);
    expect(parseCsv('a,b')).toEqual([{ line: 1, fields: ['a', 'b'] }]);
  });

  it('refuses malformed quoting with the line number', () => {
    expect(() => parseCsv('a,b\n"open,1')).toThrow(CsvError);
    expect(() => parseCsv('a,b\n"x"y,1')).toThrow(/line 2/);
    expect(() => parseCsv('a,b"c"')).toThrow(/quote/);
  });
});

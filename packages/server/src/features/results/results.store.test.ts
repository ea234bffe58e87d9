import { describe, expect, it } from 'vitest';
import { cutDocRows } from './results.store.ts';

const Q = '\x1e';

describe('rows of the COPY that hands the stored documents over', () => {
  it('joins whole rows by commas and keeps an unfinished one for the next read', () => {
    expect(cutDocRows('{"a":1}\n{"b":"x,y"}\n{"c":')).toEqual({ docs: '{"a":1},{"b":"x,y"}', rest: '{"c":' });
    expect(cutDocRows('{"a":')).toEqual({ docs: '', rest: '{"a":' });
    expect(cutDocRows('')).toEqual({ docs: '', rest: '' });
  });

  it('unquotes a row whose document holds a raw line break or carriage return, wherever the read ends', () => {
    const text = `{"a":1}\n${Q}{"b":\n2}\r${Q}\n{"c":3}\n`;
    expect(cutDocRows(text)).toEqual({ docs: '{"a":1},{"b":\n2}\r,{"c":3}', rest: '' });
    // A read that ends inside the quoted row, even right after its line break, keeps the row whole for later.
    for (let end = 9; end < text.indexOf(`${Q}\n`) + 2; end++) {
      const first = cutDocRows(text.slice(0, end));
      expect(first.docs).toBe('{"a":1}');
      const second = cutDocRows(first.rest + text.slice(end));
      expect(second).toEqual({ docs: '{"b":\n2}\r,{"c":3}', rest: '' });
    }
  });
});

import { describe, expect, it } from 'vitest';
import { MasterHttp, parseMasterUrls } from './master-http.ts';

describe('the masters a node may join', () => {
  it('reads a comma-separated list, without blanks or trailing slashes', () => {
    expect(parseMasterUrls(' http://a:8080/ , https://b.example/,,')).toEqual(['http://a:8080', 'https://b.example']);
    expect(parseMasterUrls('http://only:1')).toEqual(['http://only:1']);
  });

  it('refuses a list without a master, or with something that is not an http(s) URL', () => {
    expect(() => parseMasterUrls(' , ')).toThrow(/needed/);
    expect(() => parseMasterUrls('http://a:1,ftp://b')).toThrow(/ftp:\/\/b/);
    expect(() => parseMasterUrls('a-host:8080')).toThrow(/a-host/);
  });

  it('moves on to the next master in turn, and back to the first', () => {
    const m = new MasterHttp(['http://a:1', 'http://b:2'], 'key', 'node');
    expect(m.base).toBe('http://a:1');
    m.moveOn();
    expect(m.base).toBe('http://b:2');
    m.moveOn();
    expect(m.base).toBe('http://a:1');
  });
});

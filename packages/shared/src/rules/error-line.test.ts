import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flagErrorLines, isErrorLine } from './error-line.ts';

/** The lines of a log recorded from a real run (see fixtures/), with the ones flagged as errors. */
function flagged(fixture: string): string[] {
  const lines = readFileSync(new URL(`./fixtures/${fixture}`, import.meta.url), 'utf8').split('\n');
  const flags = flagErrorLines(lines);
  return lines.filter((_, i) => flags[i]);
}

describe('error lines of real failing runs', () => {
  it('a Scrapy project with a missing module flags the ModuleNotFoundError, not only the Deferred and Traceback lines', () => {
    const errors = flagged('scrapy-missing-module.log');
    expect(errors).toContain("builtins.ModuleNotFoundError: No module named 'crawlab'");
    expect(errors).toContain('Unhandled error in Deferred:');
    expect(errors.some((l) => / \[twisted\] CRITICAL: $/.test(l))).toBe(true);
    expect(errors.filter((l) => l.startsWith('Traceback'))).toHaveLength(2);
  });

  it('a Python script failing on a missing key flags the KeyError line that names it', () => {
    expect(flagged('python-keyerror.log')).toEqual(['Traceback (most recent call last):', "KeyError: 'title'"]);
  });

  it('the last line of a traceback counts whatever the exception class is called', () => {
    expect(flagged('python-custom-exception.log')).toEqual([
      'Traceback (most recent call last):',
      'QuotaExhausted: daily quota of 1000 requests used',
    ]);
  });

  it('a Scrapy callback failing with KeyError flags the ERROR record, the traceback and its cause, and no stats line', () => {
    const errors = flagged('scrapy-callback-error.log');
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/\[scrapy\.core\.scraper\] ERROR: Spider error processing/);
    expect(errors.slice(1)).toEqual(['Traceback (most recent call last):', "KeyError: 'title'"]);
  });

  it("a run whose DNS lookups failed flags the failures but none of Scrapy's stats dump", () => {
    const errors = flagged('scrapy-dns-failures.log');
    expect(errors.filter((l) => l.includes("': "))).toEqual([]);
    expect(errors.filter((l) => / ERROR: Gave up retrying/.test(l))).toHaveLength(3);
    expect(errors.filter((l) => l.startsWith('twisted.internet.error.DNSLookupError: DNS lookup failed'))).toHaveLength(
      3,
    );
    expect(errors.filter((l) => / ERROR: Error downloading/.test(l))).toHaveLength(3);
  });

  it("a Node.js script flags the stack head, not the stack's frames", () => {
    const errors = flagged('node-typeerror.log');
    expect(errors).toEqual(["TypeError: Cannot read properties of null (reading 'items')"]);
  });
});

describe('single lines', () => {
  it('keeps the base rule: the words error, exception and traceback delimited by punctuation or spaces', () => {
    expect(isErrorLine('fatal error: disk full')).toBe(true);
    expect(isErrorLine('Exceptions, 3 of them')).toBe(true);
    expect(isErrorLine('terror in the night')).toBe(false);
    expect(isErrorLine('no_errors_here')).toBe(false);
    expect(isErrorLine("'log_count/ERROR': 2,")).toBe(false);
    expect(isErrorLine('2026-01-01 10:00:00 [scrapy] INFO: log_count/ERROR is 0')).toBe(false);
  });

  it('flags exception heads and Scrapy CRITICAL records, not look-alikes', () => {
    expect(isErrorLine('Error: connect ECONNREFUSED 127.0.0.1:80')).toBe(true);
    expect(isErrorLine('requests.exceptions.HTTPError')).toBe(true);
    expect(isErrorLine('2026-01-01 10:00:00 [twisted] CRITICAL: boom')).toBe(true);
    expect(isErrorLine('ErrorHandler: installed')).toBe(false);
    expect(isErrorLine('2026-01-01 10:00:00 [scrapy] WARNING: CRITICAL: nothing')).toBe(false);
  });

  it("a capitalised name after a traceback frame is the traceback's end; elsewhere it is an ordinary line", () => {
    expect(isErrorLine('Boom: no', '    raise Boom("no")')).toBe(true);
    expect(isErrorLine('Boom: no', 'printing')).toBe(false);
    expect(isErrorLine('name: value', '    key: v')).toBe(false);
  });
});

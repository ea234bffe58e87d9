import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyParseState, isoOfPythonDatetime, parseScrapyLines } from './scrapy-log-parser.ts';

/** Logs recorded from real Scrapy runs, kept with the error-line rules. */
function realLog(name: string): string[] {
  return readFileSync(new URL(`../../../../shared/src/rules/fixtures/${name}`, import.meta.url), 'utf8').split('\n');
}

describe('Scrapy log parser', () => {
  it("reads a run's closing stats dump, its status and level counts", () => {
    const state = emptyParseState();
    const samples = parseScrapyLines(state, realLog('scrapy-callback-error.log'));
    expect(samples).toEqual([expect.objectContaining({ pages: 0, items: 0, pages_per_min: 0, items_per_min: 0 })]);
    expect(state.inDump).toBe(false);
    expect(state.dump.finish_reason).toBe('finished');
    expect(state.dump.elapsed_time_seconds).toBeCloseTo(0.112789);
    expect(state.dump['spider_exceptions/KeyError']).toBe(1);
    expect(state.statusCounts).toEqual({ '200': 1 });
    // The dump's counts (INFO 10), plus the "Spider closed" record printed after it.
    expect(state.levelCounts).toEqual({ DEBUG: 2, ERROR: 1, INFO: 11, WARNING: 1 });
    expect(state.pages).toBe(1);
    // Start and finish times come as UTC times, not Python's datetime text.
    expect(state.dump.finish_time).toBe('2026-11-23T09:04:44.377Z');
    expect(state.dump.start_time).toBe('2026-11-23T09:04:44.264Z');
  });

  it('reads Python datetimes of the dump, naive or aware, as UTC', () => {
    expect(isoOfPythonDatetime('datetime.datetime(2026, 12, 7, 19, 0, 1, 5000, tzinfo=datetime.timezone.utc)')).toBe(
      '2026-12-07T19:00:01.005Z',
    );
    expect(isoOfPythonDatetime('datetime.datetime(2026, 1, 2, 3, 4)')).toBe('2026-01-02T03:04:00.000Z');
    // Another zone is left as it is printed.
    expect(isoOfPythonDatetime('datetime.datetime(2026, 1, 2, 3, 4, tzinfo=tz)')).toBeUndefined();
  });

  it('reads the same whatever the batch boundaries, also one that cuts the dump', () => {
    const lines = realLog('scrapy-dns-failures.log');
    const whole = emptyParseState();
    parseScrapyLines(whole, lines);
    const cut = lines.findIndex((l) => l.includes("'log_count/ERROR'"));
    const split = emptyParseState();
    parseScrapyLines(split, lines.slice(0, cut));
    expect(split.inDump).toBe(true);
    parseScrapyLines(split, lines.slice(cut));
    expect(split).toEqual(whole);
    expect(whole.levelCounts.ERROR).toBe(6);
    // Three hosts, each tried once and retried twice.
    expect(whole.dump['downloader/exception_count']).toBe(9);
    expect(whole.dump['memusage/max']).toBeGreaterThan(0);
  });

  it('takes the "Crawled … scraped …" lines as samples with their printed time', () => {
    const state = emptyParseState();
    const samples = parseScrapyLines(state, [
      '2026-01-02 03:04:05 [scrapy.extensions.logstats] INFO: Crawled 120 pages (at 60 pages/min), scraped 2400 items (at 1200 items/min)',
      '2026-01-02 03:04:06 [scrapy.core.engine] DEBUG: Crawled (404) <GET http://x/missing> (referer: None)',
      'not a record',
    ]);
    expect(samples).toEqual([
      { at: '2026-01-02 03:04:05', pages: 120, items: 2400, pages_per_min: 60, items_per_min: 1200 },
    ]);
    expect(state.statusCounts).toEqual({ '404': 1 });
    expect(state.levelCounts).toEqual({ INFO: 1, DEBUG: 1 });
  });

  it('keeps a forged dump of any size bounded', () => {
    const state = emptyParseState();
    const forged = Array.from({ length: 2000 }, (_, i) => ` 'fake/key_${i}': ${i},`);
    parseScrapyLines(state, [
      '2026-01-02 03:04:05 [scrapy.statscollectors] INFO: Dumping Scrapy stats:',
      ...forged,
      " 'finish_reason': 'finished'}",
    ]);
    expect(Object.keys(state.dump)).toHaveLength(500);
    expect(state.inDump).toBe(false);
  });
});

import type { ScrapyStatsSample } from '@crawldeck/shared';

/**
 * Reads Scrapy's log lines one after another and keeps the run's statistics. The state is plain data so the store
 * can keep it between batches: a stats dump that a batch boundary cuts in two is still read whole.
 */
export interface ScrapyParseState {
  /** Inside the "Dumping Scrapy stats:" dict, which spans many lines. */
  inDump: boolean;
  pages: number;
  items: number;
  statusCounts: Record<string, number>;
  levelCounts: Record<string, number>;
  /** The closing dump's entries as read so far (empty until the dump starts). */
  dump: Record<string, number | string>;
}

export function emptyParseState(): ScrapyParseState {
  return { inDump: false, pages: 0, items: 0, statusCounts: {}, levelCounts: {}, dump: {} };
}

/** A record of Python's logging as Scrapy formats it: `2026-01-02 03:04:05 [scrapy.core.engine] INFO: …`. */
const RECORD = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:[.,]\d+)? \[[^\]]*\] (DEBUG|INFO|WARNING|ERROR|CRITICAL): (.*)$/;
const LOGSTATS = /^Crawled (\d+) pages \(at (\d+) pages\/min\), scraped (\d+) items \(at (\d+) items\/min\)/;
const CRAWLED_RESPONSE = /^Crawled \((\d{3})\) </;
/** One `'key': value,` line of the dump; the first starts with `{`, the last ends with `}`. */
const DUMP_ENTRY = /^[{ ]'([^']+)': (.*?)([,}])$/;
/** Spider output is untrusted: a dump with more entries than Scrapy ever prints is read only this far. */
const MAX_DUMP_ENTRIES = 500;
const STATUS_KEY = /^downloader\/response_status_count\/(\d{3})$/;
const LEVEL_KEY = /^log_count\/([A-Z]+)$/;

/**
 * `datetime.datetime(2026, 12, 7, 19, 0, 1, 123456, tzinfo=datetime.timezone.utc)`, as the dump prints its start
 * and finish times: Scrapy takes them in UTC (aware, or naive from older versions' `utcnow()`).
 */
const PY_DATETIME =
  /^datetime\.datetime\((\d{4}), (\d{1,2}), (\d{1,2})(?:, (\d{1,2}))?(?:, (\d{1,2}))?(?:, (\d{1,2}))?(?:, (\d{1,6}))?(?:, tzinfo=datetime\.timezone\.utc)?\)$/;

/** A Python datetime of the dump as an ISO 8601 time in UTC; undefined for anything else. */
export function isoOfPythonDatetime(raw: string): string | undefined {
  const m = PY_DATETIME.exec(raw);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s, us] = m.slice(1).map((v) => Number(v ?? 0));
  const ms = Date.UTC(y, mo - 1, d, h, mi, s, Math.floor(us / 1000));
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function dumpValue(raw: string): number | string {
  if (/^-?\d+(?:\.\d+)?(?:e[-+]?\d+)?$/i.test(raw)) return Number(raw);
  const time = isoOfPythonDatetime(raw);
  if (time) return time;
  const quoted = /^'(.*)'$/.exec(raw) ?? /^"(.*)"$/.exec(raw);
  return quoted ? quoted[1] : raw;
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Once the dump is complete, its counts replace the ones counted line by line (Scrapy's own are exact). */
function applyDump(state: ScrapyParseState): void {
  const statuses: Record<string, number> = {};
  const levels: Record<string, number> = {};
  for (const [key, value] of Object.entries(state.dump)) {
    if (typeof value !== 'number') continue;
    const status = STATUS_KEY.exec(key)?.[1];
    if (status) statuses[status] = value;
    const level = LEVEL_KEY.exec(key)?.[1];
    if (level) levels[level] = value;
  }
  if (Object.keys(statuses).length) state.statusCounts = statuses;
  if (Object.keys(levels).length) state.levelCounts = levels;
  const items = state.dump.item_scraped_count;
  const pages = state.dump.response_received_count;
  state.items = typeof items === 'number' ? items : state.items;
  state.pages = typeof pages === 'number' ? pages : state.pages;
}

function readDumpLine(state: ScrapyParseState, line: string): void {
  const entry = DUMP_ENTRY.exec(line);
  // A line that is no entry is a value wrapped over lines: skipped.
  if (!entry) return;
  if (entry[1] in state.dump || Object.keys(state.dump).length < MAX_DUMP_ENTRIES)
    state.dump[entry[1]] = dumpValue(entry[2]);
  if (entry[3] === '}') {
    state.inDump = false;
    applyDump(state);
  }
}

/** Reads `lines` into `state`; returns the "Crawled … scraped …" samples among them. */
export function parseScrapyLines(state: ScrapyParseState, lines: readonly string[]): ScrapyStatsSample[] {
  const samples: ScrapyStatsSample[] = [];
  for (const line of lines) {
    const record = RECORD.exec(line);
    if (!record) {
      if (state.inDump) readDumpLine(state, line);
      continue;
    }
    // A log record ends the dump even when its closing line was lost.
    state.inDump = false;
    const [, at, level, message] = record;
    bump(state.levelCounts, level);
    const stats = LOGSTATS.exec(message);
    if (stats) {
      const [pages, pagesPerMin, items, itemsPerMin] = stats.slice(1).map(Number);
      state.pages = pages;
      state.items = items;
      samples.push({ at, pages, items, pages_per_min: pagesPerMin, items_per_min: itemsPerMin });
      continue;
    }
    const status = CRAWLED_RESPONSE.exec(message)?.[1];
    if (status) bump(state.statusCounts, status);
    if (message === 'Dumping Scrapy stats:') {
      state.inDump = true;
      state.dump = {};
    }
  }
  return samples;
}

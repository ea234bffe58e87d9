/**
 * Which log lines count as error lines: the ones "next error" jumps to and the task's error count adds up.
 *
 * The base rule: a line containing the word error, exception or traceback (plurals allowed, any case), delimited
 * by space, colon, comma, period or the line edge. On top of it, the lines that name the cause of a failure:
 * an exception line (`KeyError: 'title'`, `builtins.ModuleNotFoundError: …`, Node's `TypeError: …` stack head),
 * the last line of a Python traceback whatever the exception is called, and Scrapy's ERROR and CRITICAL records.
 * Scrapy's stats dump (`'log_count/ERROR': 3,`, `'downloader/exception_type_count/…DNSLookupError': 6,`) is a
 * count, not a failure, and never counts.
 */
const ERROR_WORD = /(?:^|[\s:,.])(?:errors?|exceptions?|tracebacks?)(?=$|[\s:,.])/i;
const LOG_COUNT_KEY = /log_count\/ERROR/gi;

/** One entry of Scrapy's "Dumping Scrapy stats" dict: a quoted key with a slash (`'retry/reason_count/…': 3,`). */
const STATS_DUMP_ENTRY = /^\s*\{?'[\w.-]+\/[^']*': .*[,}]$/;

/** `KeyError: …`, `twisted.internet.error.DNSLookupError: …`, `Error: …`, `requests.exceptions.HTTPError` alone. */
const EXCEPTION_LINE = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]*(?:Error|Exception)(?::|$)/;

/** A Scrapy (Python logging) record of level ERROR or CRITICAL: `2026-01-02 03:04:05 [scope] CRITICAL: …`. */
const SCRAPY_SEVERE_RECORD = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)? \[[^\]]*\] (?:ERROR|CRITICAL):/;

/** A frame line of a Python traceback: `  File "…", line 3, in f` or the indented source / marker lines under it. */
const TRACEBACK_FRAME = /^(?: {2}File "| {4})/;

/** What ends a traceback: the exception's (dotted) class name, capitalised, with or without `: message`. */
const TRACEBACK_LAST = /^(?:[a-z_]\w*\.)*[A-Z]\w*(?::\s.*|:)?$/;

/**
 * Whether one log line is an error line. `previous` is the line before it (empty for the first line): a traceback's
 * last line is recognised by following a frame line, so custom exceptions (`QuotaExhausted: …`) count too.
 */
export function isErrorLine(line: string, previous = ''): boolean {
  if (STATS_DUMP_ENTRY.test(line)) return false;
  if (ERROR_WORD.test(line.replace(LOG_COUNT_KEY, ' '))) return true;
  if (EXCEPTION_LINE.test(line) || SCRAPY_SEVERE_RECORD.test(line)) return true;
  return TRACEBACK_FRAME.test(previous) && TRACEBACK_LAST.test(line);
}

/** Flags a run of consecutive lines; `before` is the line stored just before the first of them. */
export function flagErrorLines(lines: readonly string[], before = ''): boolean[] {
  return lines.map((line, i) => isErrorLine(line, i === 0 ? before : lines[i - 1]));
}

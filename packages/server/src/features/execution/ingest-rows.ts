/**
 * What a batch of a task's output becomes before it is stored, the same on both engines: log lines made storable
 * and flagged, items parsed, cleaned of the fields the store sets itself and deduplicated within the batch.
 */
import { isErrorLine, type ShipBatch } from '@crawldeck/shared';
import type { LogEvent } from '../../events.ts';

/**
 * The lines of a batch not stored yet when `stored` are: what lies below is skipped, and nothing is taken from a
 * batch that starts beyond `stored` (a gap: the node ships again from the answered offset).
 */
export function unstoredPart(batch: ShipBatch, stored: number): string[] {
  return batch.from > stored ? [] : batch.lines.slice(stored - batch.from);
}

/** Longest stored log line: the node cuts at 64 KiB (+ marker); this guards the store against any other client. */
export const MAX_LINE_CHARS = 64 * 1024 + 1024;

/** A log line as stored: a NUL byte, which PostgreSQL text cannot hold, shown as U+FFFD; an overlong line cut. */
export function storedLine(printed: string): string {
  const raw = printed.includes('\u0000') ? printed.replaceAll('\u0000', '\uFFFD') : printed;
  return raw.length > MAX_LINE_CHARS ? raw.slice(0, MAX_LINE_CHARS) + ` … [line cut: ${raw.length} chars]` : raw;
}

/** The lines as stored: the same array when no line changes (the usual case), no copy made. */
function storedLines(lines: readonly string[]): readonly string[] {
  for (const line of lines) if (line.length > MAX_LINE_CHARS || line.includes('\u0000')) return lines.map(storedLine);
  return lines;
}

/**
 * What a line holds when any rule but the traceback's last line makes it an error line: one of the words the
 * rules look for (error, exception, traceback, Scrapy's CRITICAL), in any case. A traceback's last line follows
 * a frame line, which starts with two spaces.
 */
const ERROR_HINT = /error|exception|traceback|critical/i;

/**
 * The error flags of consecutive lines, as flagErrorLines gives them (`before`: the line stored just before the
 * first), the rules read only for a line with a hint of an error or after an indented line: most lines of a log
 * are neither, and one search for four words costs a fraction of the rules' six patterns.
 */
export function errorFlags(msgs: readonly string[], before: string): boolean[] {
  const flags = new Array<boolean>(msgs.length);
  let previous = before;
  for (let i = 0; i < msgs.length; i++) {
    const line = msgs[i];
    flags[i] = (ERROR_HINT.test(line) || previous.startsWith('  ')) && isErrorLine(line, previous);
    previous = line;
  }
  return flags;
}

/** Log lines ready to store from line number `first` on, with their error flags. */
export interface LogRows {
  first: number;
  msgs: readonly string[];
  flags: boolean[];
  errors: number;
}

/** `before`: the stored line just before the first (a traceback's last line is known by the line before it). */
export function logRows(fresh: readonly string[], first: number, before: string): LogRows {
  const msgs = storedLines(fresh);
  const flags = errorFlags(msgs, before);
  let errors = 0;
  for (const f of flags) if (f) errors++;
  return { first, msgs, flags, errors };
}

/**
 * The log lines of a batch to store once `stored` lines are: undefined when none are new. `early`, the rows of
 * the whole batch made before the task was locked (as if the stored lines ended where the batch starts, the
 * first line flagged as if nothing came before it), is taken when the batch does start there: only the first
 * line's flag is read again, against the line actually stored before it.
 */
export function logsToStore(batch: ShipBatch, stored: number, before: string, early?: LogRows): LogRows | undefined {
  const fresh = unstoredPart(batch, stored);
  if (!fresh.length) return undefined;
  if (!early || batch.from !== stored) return logRows(fresh, stored + 1, before);
  const flag = isErrorLine(early.msgs[0], before);
  const errors = early.errors + (flag ? 1 : 0) - (early.flags[0] ? 1 : 0);
  return { ...early, flags: [flag, ...early.flags.slice(1)], errors };
}

/** What the console's live log and the metrics hear about stored lines. */
export function logEvent(taskId: string, rows: LogRows): LogEvent {
  const lines = rows.msgs.map((msg, i) => ({ line_no: rows.first + i, msg, is_error: rows.flags[i] }));
  return { taskId, lines };
}

export interface DedupConfig {
  collection: string;
  isDedup: boolean;
  field: string;
  method: 'ignore' | 'overwrite';
}

/** An item ready to store: its JSON document and, when the spider deduplicates, the key it is deduplicated by. */
export interface ItemRow {
  dedup_key: string | null;
  data: string;
}

/**
 * What a line may hold that writing the item again would change: a number JSON.parse reads as Infinity (a
 * three-digit exponent, or more integer digits than a double holds), stored as null so no reader ever meets a
 * non-finite number; a lone half of a UTF-16 pair, kept as its escape. Three searches, each a plain scan: one
 * pattern of the three alternatives (with \p{Cs}, which needs the Unicode flag) cost ≈ 4× as much per line.
 */
const BIG_EXPONENT = /[eE][+-]?\d{3}/;
const LONG_DIGITS = /\d{309}/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether the line must be written again to be stored (see above). */
export function notAsIs(line: string): boolean {
  return BIG_EXPONENT.test(line) || (line.length >= 309 && LONG_DIGITS.test(line)) || LONE_SURROGATE.test(line);
}

/**
 * The item's JSON document: the line itself when it is already what would be stored (no field the store sets
 * itself, no number out of range, no lone half of a UTF-16 pair), otherwise the cleaned object written again.
 * Reading the line costs as much as writing it again, so only the first is done when it can be.
 */
function itemData(line: string, obj: Record<string, unknown>): string {
  const reserved = Object.hasOwn(obj, '_id') || Object.hasOwn(obj, 'task_id');
  if (!reserved && !notAsIs(line)) return line;
  delete obj._id;
  delete obj.task_id;
  return JSON.stringify(obj);
}

function parseItem(line: string): Record<string, unknown> | undefined {
  try {
    const item: unknown = JSON.parse(line);
    return item && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Items of a batch in order: lines that are not a JSON object are skipped, and with deduplication on, a key seen
 * earlier in the batch is skipped (ignore) or replaces the earlier item in its place (overwrite).
 */
export function itemRows(fresh: readonly string[], dedup: DedupConfig): { rows: ItemRow[]; skipped: number } {
  const dedupOn = dedup.isDedup && !!dedup.field;
  const rows: ItemRow[] = [];
  const byKey = new Map<string, number>();
  let skipped = 0;
  for (const line of fresh) {
    const obj = parseItem(line);
    if (!obj) {
      skipped++;
      continue;
    }
    const data = itemData(line, obj);
    // Read after the reserved fields are gone: deduplicating by one of them means by nothing.
    const value = dedupOn ? obj[dedup.field] : undefined;
    const key = value === undefined || value === null ? null : JSON.stringify(value);
    const row: ItemRow = { dedup_key: key, data };
    if (key !== null) {
      const seen = byKey.get(key);
      if (seen !== undefined) {
        skipped++;
        if (dedup.method === 'overwrite') rows[seen] = row;
        continue;
      }
      byKey.set(key, rows.length);
    }
    rows.push(row);
  }
  return { rows, skipped };
}

/** The items of a batch to store once `offset` are stored, and how many lines that covers; see logsToStore. */
export function itemsToStore(
  batch: ShipBatch,
  offset: number,
  dedup: DedupConfig,
  early?: { rows: ItemRow[]; skipped: number },
): { lines: number; rows: ItemRow[]; skipped: number } | undefined {
  const fresh = unstoredPart(batch, offset);
  if (!fresh.length) return undefined;
  return { lines: fresh.length, ...(early && batch.from === offset ? early : itemRows(fresh, dedup)) };
}

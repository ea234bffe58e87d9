import Database from 'better-sqlite3';
import { LIST_COUNT_CAP } from '@crawldeck/shared';
import { attachLogIndex, LINE_BITS, ownTable } from './log-index-file.store.ts';
import type { StoredLogLine } from './tasks.store.ts';

/** One keyword search in one task's log: which lines, which page of the matches, and until when to work. */
export interface LogSearchJob {
  taskId: string;
  keyword: string;
  /** The task's last stored line number when the search started. */
  lastLine: number;
  offset: number;
  limit: number;
  /** How long the search may work, from when it starts, before it answers what it knows. */
  budgetMs: number;
}

/** The page of matches, how many matches there are, and whether that number is only a lower bound. */
export interface LogSearchAnswer {
  rows: StoredLogLine[];
  total: number;
  partial: boolean;
}

/** A LIKE pattern that takes the keyword literally (\, % and _ escaped with \). */
export function containsPattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
}

/** Trigrams serve keywords of three characters or more; shorter ones are found by reading the lines. */
export const trigramsServe = (keyword: string): boolean => [...keyword].length >= 3;

/**
 * Matches a search counts once its page is found: like a list's count, the number stops there ("at least"), so a
 * word on every line of a long log answers as fast as a rare one. A page further on is still found wherever it is.
 */
export const MATCH_COUNT_CAP = LIST_COUNT_CAP;

const FIRST_SPAN = 16_384;
const MAX_SPAN = 1 << 24;
/** A slice of lines should take about this long, so the clock is looked at often but queries stay few. */
const SLICE_MS = { fast: 20, slow: 80 };
/**
 * Above this share of matching lines reading the lines beats the index: the index pays per match (its lists, then
 * the stored line to confirm the match), a read of the lines pays per line, and both find the same lines.
 */
const DENSE_SHARE = 0.05;

/** Opens the read-only connection a search worker thread uses beside the master's own (WAL lets both read). */
export function openLogReader(file: string): Database.Database {
  const conn = new Database(file, { readonly: true, fileMustExist: true });
  conn.pragma('busy_timeout = 5000');
  attachLogIndex(conn, file);
  return conn;
}

interface Progress {
  seq: number;
  indexed_line: number;
  own_from: number;
  own_table: number;
}

interface IndexQueries {
  count: Database.Statement<unknown[], { n: number }>;
  rows: Database.Statement<unknown[], StoredLogLine>;
}

interface Statements {
  progressOf: Database.Statement<[string, string], Progress>;
  shared: IndexQueries;
  scanCount: Database.Statement<unknown[], { n: number }>;
  scanRows: Database.Statement<unknown[], StoredLogLine>;
  /** The queries of a task's own table, by its search number (a few kept). */
  own: Map<number, IndexQueries>;
}

const prepared = new WeakMap<Database.Database, Statements>();

/**
 * The trigram index narrows the lines; LIKE on the stored line keeps exactly the matches a plain scan finds (the
 * index folds the case of every alphabet, LIKE only of ASCII letters). `key - @base` is the line number.
 */
function indexQueries(conn: Database.Database, table: string): IndexQueries {
  const from = `FROM ix.${table} CROSS JOIN main.task_logs l ON l.task_id = @task AND l.line_no = ${table}.rowid - @base
    WHERE ${table} MATCH @phrase AND ${table}.rowid BETWEEN @lo AND @hi AND l.msg LIKE @pattern ESCAPE '\\'`;
  return {
    count: conn.prepare(`SELECT count(*) AS n ${from}`),
    rows: conn.prepare(`SELECT l.line_no, l.msg, l.is_error ${from} ORDER BY ${table}.rowid LIMIT @take OFFSET @skip`),
  };
}

function statements(conn: Database.Database): Statements {
  let st = prepared.get(conn);
  if (st) return st;
  const scanFrom = `FROM main.task_logs WHERE task_id = @task AND line_no BETWEEN @lo AND @hi AND msg LIKE @pattern ESCAPE '\\'`;
  st = {
    // A task on the store's list of retired ones has lost its lines: its index entries are not read any more.
    progressOf: conn.prepare(`SELECT seq, indexed_line, own_from, own_table FROM ix.task_log_search WHERE task_id = ?
      AND NOT EXISTS (SELECT 1 FROM main.task_log_retired WHERE task_id = ?)`),
    shared: indexQueries(conn, 'task_log_fts'),
    scanCount: conn.prepare(`SELECT count(*) AS n ${scanFrom}`),
    scanRows: conn.prepare(`SELECT line_no, msg, is_error ${scanFrom} ORDER BY line_no LIMIT @take OFFSET @skip`),
    own: new Map(),
  };
  prepared.set(conn, st);
  return st;
}

function ownQueries(conn: Database.Database, st: Statements, seq: number): IndexQueries {
  let q = st.own.get(seq);
  if (!q) {
    if (st.own.size >= 8) st.own.delete(st.own.keys().next().value!);
    q = indexQueries(conn, ownTable(seq));
    st.own.set(seq, q);
  }
  return q;
}

/** How to count and read the matches among lines lo…hi of the task. */
interface Slicer {
  count(lo: number, hi: number): number;
  rows(lo: number, hi: number, skip: number, take: number): StoredLogLine[];
}

/** A stretch of lines (up to `to`) served by one index table. */
interface IndexPart {
  to: number;
  slicer: Slicer;
}

function scanSlicer(st: Statements, job: LogSearchJob): Slicer {
  const common = { task: job.taskId, pattern: containsPattern(job.keyword) };
  return {
    count: (lo, hi) => st.scanCount.get({ ...common, lo, hi })!.n,
    rows: (lo, hi, skip, take) => st.scanRows.all({ ...common, lo, hi, skip, take }),
  };
}

function tableSlicer(q: IndexQueries, job: LogSearchJob, base: bigint): Slicer {
  const keyed = {
    task: job.taskId,
    pattern: containsPattern(job.keyword),
    base,
    phrase: `"${job.keyword.replaceAll('"', '""')}"`,
  };
  const range = (lo: number, hi: number) => ({ ...keyed, lo: base + BigInt(lo), hi: base + BigInt(hi) });
  return {
    count: (lo, hi) => q.count.get(range(lo, hi))!.n,
    rows: (lo, hi, skip, take) => q.rows.all({ ...range(lo, hi), skip, take }),
  };
}

/**
 * The index over the task's lines 1…indexed line, in stretches: the shared table up to the task's own table, then
 * its own table; empty when none of its lines is indexed yet.
 */
function indexParts(conn: Database.Database, st: Statements, job: LogSearchJob): IndexPart[] {
  const p = st.progressOf.get(job.taskId, job.taskId);
  if (!p || p.indexed_line < 1) return [];
  const parts: IndexPart[] = [];
  const sharedTo = Math.min(p.indexed_line, p.own_from - 1);
  if (sharedTo >= 1) parts.push({ to: sharedTo, slicer: tableSlicer(st.shared, job, BigInt(p.seq) << LINE_BITS) });
  if (p.indexed_line >= p.own_from && p.own_table)
    parts.push({ to: p.indexed_line, slicer: tableSlicer(ownQueries(conn, st, p.seq), job, 0n) });
  return parts;
}

const nextSpan = (span: number, ms: number) =>
  ms < SLICE_MS.fast ? Math.min(MAX_SPAN, span * 2) : ms > SLICE_MS.slow ? Math.max(1024, span >> 1) : span;

/**
 * Searches one task's log on SQLite in slices of lines, in line order: each slice is counted, the slices that hold
 * the asked page are also read. Lines the background indexer has reached go through the index while matches are
 * sparse; the rest (the unindexed tail, short keywords, dense matches) are read line by line. Between slices the
 * clock decides whether to go on; when the deadline has passed the answer holds the page as far as found and the
 * matches counted so far, marked partial; so is the answer of a search that stopped counting at MATCH_COUNT_CAP
 * with its page found. The whole search reads one snapshot of both files, so a task's index cannot go away under it.
 */
export function searchSqliteLog(conn: Database.Database, job: LogSearchJob): LogSearchAnswer {
  return conn.transaction(() => searchSnapshot(conn, job))();
}

function searchSnapshot(conn: Database.Database, job: LogSearchJob): LogSearchAnswer {
  const deadline = Date.now() + job.budgetMs;
  const st = statements(conn);
  const scan = scanSlicer(st, job);
  const index = trigramsServe(job.keyword) ? indexParts(conn, st, job) : [];
  const rows: StoredLogLine[] = [];
  let total = 0;
  let lo = 1;
  let span = FIRST_SPAN;
  while (lo <= job.lastLine) {
    const started = performance.now();
    const part = index.find((p) => lo <= p.to);
    // A slice never straddles the end of an index stretch: each stretch and the tail are read each their own way.
    const hi = Math.min(job.lastLine, part ? part.to : job.lastLine, lo + span - 1);
    const slices = part && total <= (lo - 1) * DENSE_SHARE ? part.slicer : scan;
    const n = slices.count(lo, hi);
    if (rows.length < job.limit && total + n > job.offset) {
      rows.push(...slices.rows(lo, hi, Math.max(0, job.offset - total), job.limit - rows.length));
    }
    total += n;
    lo = hi + 1;
    span = nextSpan(span, performance.now() - started);
    if (Date.now() >= deadline || (rows.length >= job.limit && total >= MATCH_COUNT_CAP)) break;
  }
  return { rows, total, partial: lo <= job.lastLine };
}

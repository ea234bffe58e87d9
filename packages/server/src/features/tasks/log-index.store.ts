import Database from 'better-sqlite3';
import { applySqliteCache, type SqliteCacheSettings } from '../../store/sqlite-cache.ts';
import {
  attachLogIndex,
  LINE_BITS,
  OWN_FROM,
  OWN_TABLE_OPTIONS,
  ownTable,
  prepareLogIndex,
} from './log-index-file.store.ts';

/**
 * The background indexer of task logs on SQLite: it adds stored lines to the trigram index after the ingest has
 * committed them, and removes the entries of tasks that went away, a bounded chunk per transaction. It writes only
 * the index file (schema `ix`); the store's file it reads, apart from taking tasks off the list of retired ones.
 * Progress lives in the index file (per task the last indexed line), so a restart goes on where the last run stopped.
 */

/**
 * Opens the indexer's connection: the store's file, with the index file attached for writing. `cache` sizes the page
 * cache of the index file, where each chunk of lines adds entries all over a tree that grows with the stored logs;
 * the store's own pages it reads once, in order, just after the ingest wrote them (the driver's default cache).
 */
export function openLogIndexWriter(file: string, cache?: SqliteCacheSettings): Database.Database {
  prepareLogIndex(file);
  const conn = new Database(file, { fileMustExist: true });
  conn.pragma('busy_timeout = 5000');
  attachLogIndex(conn, file);
  if (cache) applySqliteCache(conn, cache, ['ix']);
  conn.pragma('ix.synchronous = NORMAL');
  return conn;
}

interface Progress {
  seq: number;
  indexed_line: number;
  own_from: number;
  own_table: number;
}

interface Statements {
  behind: Database.Statement<[number], { task_id: string; log_lines: number }>;
  caughtUp: Database.Statement<[number]>;
  behindAgain: Database.Statement<[string]>;
  logLines: Database.Statement<[string], { log_lines: number; retired: number }>;
  progress: Database.Statement<[string], Progress>;
  register: Database.Statement<[string, number]>;
  linesOf: Database.Statement<[string, number, number], { line_no: number; msg: string }>;
  addShared: Database.Statement<[bigint, string]>;
  advance: Database.Statement<[number, number]>;
  markOwn: Database.Statement<[number]>;
  retired: Database.Statement<[number], { task_id: string }>;
  queuePurge: Database.Statement<[string]>;
  unregister: Database.Statement<[string]>;
  unretire: Database.Statement<[string]>;
  nextPurge: Database.Statement<[], { seq: number; own_table: number }>;
  ownDropped: Database.Statement<[number]>;
  sharedKeys: Database.Statement<[bigint, bigint, number], { rowid: bigint }>;
  removeShared: Database.Statement<[bigint]>;
  purged: Database.Statement<[number]>;
}

/**
 * Tasks with lines not indexed yet: from the list the store keeps, each task looked up by its key (CROSS JOIN keeps
 * that order: SQLite's planner, without statistics, would walk the tasks table and look each one up in the list).
 */
export const TASKS_BEHIND = `SELECT t.id AS task_id, t.log_lines FROM main.task_log_behind b
  CROSS JOIN main.tasks t ON t.id = b.task_id LEFT JOIN ix.task_log_search s ON s.task_id = t.id
  WHERE t.log_lines > coalesce(s.indexed_line, 0) LIMIT ?`;

const prepared = new WeakMap<Database.Database, Statements>();

function statements(conn: Database.Database): Statements {
  let st = prepared.get(conn);
  if (st) return st;
  st = {
    behind: conn.prepare(TASKS_BEHIND),
    // One statement: lines counted in meanwhile (the trigger) either come before it, and the task stays, or after.
    caughtUp: conn.prepare(`DELETE FROM main.task_log_behind WHERE task_id IN (
      SELECT b.task_id FROM main.task_log_behind b LEFT JOIN main.tasks t ON t.id = b.task_id
      LEFT JOIN ix.task_log_search s ON s.task_id = b.task_id
      WHERE t.id IS NULL OR t.log_lines <= coalesce(s.indexed_line, 0) LIMIT ?)`),
    behindAgain: conn.prepare(`INSERT OR IGNORE INTO main.task_log_behind (task_id)
      SELECT id FROM main.tasks WHERE id = ? AND log_lines > 0`),
    logLines: conn.prepare(`SELECT log_lines, EXISTS (SELECT 1 FROM main.task_log_retired r WHERE r.task_id = t.id)
      AS retired FROM main.tasks t WHERE id = ?`),
    progress: conn.prepare('SELECT seq, indexed_line, own_from, own_table FROM ix.task_log_search WHERE task_id = ?'),
    register: conn.prepare('INSERT OR IGNORE INTO ix.task_log_search (task_id, own_from) VALUES (?, ?)'),
    linesOf: conn.prepare(
      'SELECT line_no, msg FROM main.task_logs WHERE task_id = ? AND line_no > ? AND line_no <= ? ORDER BY line_no',
    ),
    addShared: conn.prepare('INSERT OR REPLACE INTO ix.task_log_fts (rowid, msg) VALUES (?, ?)'),
    advance: conn.prepare('UPDATE ix.task_log_search SET indexed_line = ? WHERE seq = ?'),
    markOwn: conn.prepare('UPDATE ix.task_log_search SET own_table = 1 WHERE seq = ?'),
    retired: conn.prepare('SELECT task_id FROM main.task_log_retired LIMIT ?'),
    queuePurge: conn.prepare(`INSERT OR IGNORE INTO ix.task_log_purge (seq, own_table)
      SELECT seq, own_table FROM ix.task_log_search WHERE task_id = ?`),
    unregister: conn.prepare('DELETE FROM ix.task_log_search WHERE task_id = ?'),
    unretire: conn.prepare('DELETE FROM main.task_log_retired WHERE task_id = ?'),
    nextPurge: conn.prepare('SELECT seq, own_table FROM ix.task_log_purge ORDER BY seq LIMIT 1'),
    ownDropped: conn.prepare('UPDATE ix.task_log_purge SET own_table = 0 WHERE seq = ?'),
    // Keys above 2^53 would lose digits as numbers: they are read as bigints.
    sharedKeys: conn
      .prepare('SELECT rowid FROM ix.task_log_fts WHERE rowid BETWEEN ? AND ? ORDER BY rowid LIMIT ?')
      .safeIntegers(true) as Statements['sharedKeys'],
    removeShared: conn.prepare('DELETE FROM ix.task_log_fts WHERE rowid = ?'),
    purged: conn.prepare('DELETE FROM ix.task_log_purge WHERE seq = ?'),
  };
  prepared.set(conn, st);
  return st;
}

/**
 * Takes up to `limit` tasks whose lines are all indexed (or that are gone) off the list of tasks behind; answers
 * how many. A short write to the store's file.
 */
export function dropCaughtUp(conn: Database.Database, limit: number): number {
  return statements(conn).caughtUp.run(limit).changes;
}

/** Tasks whose stored lines run ahead of their index, at most `limit` of them (from the list of tasks behind). */
export function tasksBehind(conn: Database.Database, limit: number): { taskId: string; logLines: number }[] {
  return statements(conn)
    .behind.all(limit)
    .map((r) => ({ taskId: r.task_id, logLines: r.log_lines }));
}

/** Adds lines to a task's own table (created with its first line). */
function ownWriter(conn: Database.Database, p: Progress) {
  let insert: Database.Statement<[number, string]> | undefined;
  return (lineNo: number, msg: string) => {
    if (!insert) {
      const table = ownTable(p.seq);
      if (!p.own_table) {
        conn.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ix.${table} USING fts5(${OWN_TABLE_OPTIONS})`);
        statements(conn).markOwn.run(p.seq);
      }
      insert = conn.prepare(`INSERT OR REPLACE INTO ix.${table} (rowid, msg) VALUES (?, ?)`);
    }
    insert.run(lineNo, msg);
  };
}

/**
 * Indexes the next stored lines of one task, at most `chunk` of them and none past `upTo` (a test stops there), in
 * one transaction that writes only the index file; answers how many lines it indexed (0: the task is gone, retired
 * or indexed that far). `ownFrom` is where the task's own table starts, fixed when the task is first indexed.
 */
export function indexNextLines(
  conn: Database.Database,
  taskId: string,
  chunk: number,
  upTo = Infinity,
  ownFrom = OWN_FROM,
): number {
  const st = statements(conn);
  return conn.transaction(() => {
    const task = st.logLines.get(taskId);
    // A retired task is first taken off the list (and its entries queued for removal), then indexed anew.
    if (!task || task.retired) return 0;
    st.register.run(taskId, ownFrom);
    const progress = st.progress.get(taskId)!;
    const end = Math.min(task.log_lines, upTo, progress.indexed_line + chunk);
    if (progress.indexed_line >= end) return 0;
    const lines = st.linesOf.all(taskId, progress.indexed_line, end);
    const base = BigInt(progress.seq) << LINE_BITS;
    const addOwn = ownWriter(conn, progress);
    for (const l of lines) {
      if (l.line_no < progress.own_from) st.addShared.run(base + BigInt(l.line_no), l.msg);
      else addOwn(l.line_no, l.msg);
    }
    // Lines are stored without gaps; lines missing here were removed by the log retention and need no entry.
    st.advance.run(end, progress.seq);
    return Math.max(lines.length, 1);
  })();
}

/**
 * Takes up to `limit` tasks off the store's list of retired ones: their progress goes, so searches and the indexer
 * forget them, and their entries are queued for removal. Answers how many it took.
 */
export function adoptRetired(conn: Database.Database, limit: number): number {
  const st = statements(conn);
  const ids = st.retired.all(limit).map((r) => r.task_id);
  if (!ids.length) return 0;
  conn.transaction(() => {
    for (const id of ids) {
      st.queuePurge.run(id);
      st.unregister.run(id);
    }
  })();
  // Then off the list, in the store's file (a short write): if the master stops in between, they are taken again
  // and, having no progress any more, simply dropped from the list.
  conn.transaction(() => {
    for (const id of ids) {
      st.unretire.run(id);
      // Its progress is gone: a task that still has lines is indexed anew.
      st.behindAgain.run(id);
    }
  })();
  return ids.length;
}

/**
 * Removes one chunk of a gone task's entries: its own table dropped whole, or up to `chunk` shared entries. Answers
 * how much it did (0: nothing queued).
 */
export function purgeNext(conn: Database.Database, chunk: number): number {
  const st = statements(conn);
  return conn.transaction(() => {
    const next = st.nextPurge.get();
    if (!next) return 0;
    if (next.own_table) {
      conn.exec(`DROP TABLE IF EXISTS ix.${ownTable(next.seq)}`);
      st.ownDropped.run(next.seq);
      return 1;
    }
    const base = BigInt(next.seq) << LINE_BITS;
    const keys = st.sharedKeys.all(base, base + (1n << LINE_BITS) - 1n, chunk);
    for (const k of keys) st.removeShared.run(k.rowid);
    if (keys.length < chunk) st.purged.run(next.seq);
    return Math.max(keys.length, 1);
  })();
}

/** Both steps of removing gone tasks' entries; answers how much work there was (0: none). */
export function purgeRetired(conn: Database.Database, chunk: number): number {
  return adoptRetired(conn, 500) + purgeNext(conn, chunk);
}

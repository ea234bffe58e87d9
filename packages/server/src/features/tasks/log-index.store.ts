import Database from 'better-sqlite3';

/**
 * The background indexer of task logs on SQLite: it adds stored lines to the trigram index after the ingest
 * has committed them, and removes the entries of deleted tasks, a bounded chunk per write transaction so the
 * master's own writes never wait long for the lock. Progress lives in task_log_search (per task the last indexed
 * line), so a restart goes on where the last run stopped.
 */
const LINE_BITS = 32n;

/** Opens the indexer's own writable connection beside the master's (WAL: readers are never blocked). */
export function openLogIndexWriter(file: string): Database.Database {
  const conn = new Database(file, { fileMustExist: true });
  conn.pragma('busy_timeout = 5000');
  conn.pragma('synchronous = NORMAL');
  return conn;
}

interface Behind {
  task_id: string;
  log_lines: number;
  seq: number | null;
  indexed_line: number | null;
}

interface Statements {
  behind: Database.Statement<[number], Behind>;
  logLines: Database.Statement<[string], { log_lines: number }>;
  progress: Database.Statement<[string], { seq: number; indexed_line: number }>;
  register: Database.Statement<[string]>;
  linesOf: Database.Statement<[string, number, number], { line_no: number; msg: string }>;
  addEntry: Database.Statement<[bigint, string]>;
  advance: Database.Statement<[number, number]>;
  retired: Database.Statement<[], { seq: number }>;
  retiredKeys: Database.Statement<[bigint, bigint, number], { rowid: bigint }>;
  removeEntry: Database.Statement<[bigint]>;
  forget: Database.Statement<[number]>;
}

const prepared = new WeakMap<Database.Database, Statements>();

function statements(conn: Database.Database): Statements {
  let st = prepared.get(conn);
  if (st) return st;
  st = {
    behind: conn.prepare(`SELECT t.id AS task_id, t.log_lines, s.seq, s.indexed_line FROM tasks t
      LEFT JOIN task_log_search s ON s.task_id = t.id WHERE t.log_lines > coalesce(s.indexed_line, 0) LIMIT ?`),
    logLines: conn.prepare('SELECT log_lines FROM tasks WHERE id = ?'),
    progress: conn.prepare('SELECT seq, indexed_line FROM task_log_search WHERE task_id = ?'),
    register: conn.prepare('INSERT OR IGNORE INTO task_log_search (task_id) VALUES (?)'),
    linesOf: conn.prepare(
      'SELECT line_no, msg FROM task_logs WHERE task_id = ? AND line_no > ? AND line_no <= ? ORDER BY line_no',
    ),
    addEntry: conn.prepare('INSERT OR REPLACE INTO task_log_fts (rowid, msg) VALUES (?, ?)'),
    advance: conn.prepare('UPDATE task_log_search SET indexed_line = ? WHERE seq = ?'),
    retired: conn.prepare('SELECT seq FROM task_log_search_retired ORDER BY seq LIMIT 1'),
    // Keys above 2^53 would lose digits as numbers: they are read as bigints.
    retiredKeys: conn
      .prepare('SELECT rowid FROM task_log_fts WHERE rowid BETWEEN ? AND ? ORDER BY rowid LIMIT ?')
      .safeIntegers(true) as Statements['retiredKeys'],
    removeEntry: conn.prepare('DELETE FROM task_log_fts WHERE rowid = ?'),
    forget: conn.prepare('DELETE FROM task_log_search_retired WHERE seq = ?'),
  };
  prepared.set(conn, st);
  return st;
}

/** Tasks whose stored lines run ahead of their index, at most `limit` of them. */
export function tasksBehind(conn: Database.Database, limit: number): { taskId: string; logLines: number }[] {
  return statements(conn)
    .behind.all(limit)
    .map((r) => ({ taskId: r.task_id, logLines: r.log_lines }));
}

/**
 * Indexes the next stored lines of one task, at most `chunk` of them and none past `upTo` (a test stops there), in
 * one short write transaction; answers how many lines it indexed (0: the task is gone or indexed that far).
 */
export function indexNextLines(conn: Database.Database, taskId: string, chunk: number, upTo = Infinity): number {
  const st = statements(conn);
  return conn
    .transaction(() => {
      const task = st.logLines.get(taskId);
      if (!task) return 0;
      st.register.run(taskId);
      const progress = st.progress.get(taskId)!;
      const end = Math.min(task.log_lines, upTo, progress.indexed_line + chunk);
      if (progress.indexed_line >= end) return 0;
      const lines = st.linesOf.all(taskId, progress.indexed_line, end);
      const base = BigInt(progress.seq) << LINE_BITS;
      for (const l of lines) st.addEntry.run(base + BigInt(l.line_no), l.msg);
      // Lines are stored without gaps; lines missing here were removed by the log retention and need no entry.
      st.advance.run(end, progress.seq);
      return Math.max(lines.length, 1);
    })
    .immediate();
}

/** Removes up to `chunk` index entries of a deleted task's retired number; answers how many it removed. */
export function purgeRetired(conn: Database.Database, chunk: number): number {
  const st = statements(conn);
  return conn
    .transaction(() => {
      const retired = st.retired.get();
      if (!retired) return 0;
      const base = BigInt(retired.seq) << LINE_BITS;
      const keys = st.retiredKeys.all(base, base + (1n << LINE_BITS) - 1n, chunk);
      for (const k of keys) st.removeEntry.run(k.rowid);
      if (keys.length < chunk) st.forget.run(retired.seq);
      return Math.max(keys.length, 1);
    })
    .immediate();
}

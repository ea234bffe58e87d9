import { chmodSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * The file of the task-log index on SQLite, beside the store's own file. Only the background indexer writes it, so
 * adding lines to the index never holds the store's write lock; search workers attach it read-only. It can be
 * deleted while the master is stopped: the indexer builds it again from the stored lines.
 *
 * Index keys: a task gets a search number (never reused). Its first lines (up to `own_from` - 1) go to the shared
 * trigram table under the key number × 2^32 + line, so one task's lines are one key range; the lines from `own_from`
 * on go to a table of the task's own, keyed by line number. When the task goes, its own table is dropped whole and
 * only the few shared entries are removed one by one, so removing a big task costs about as much as a small one.
 */
export const LINE_BITS = 32n;

/** Where a task's own table starts, unless the caller says otherwise: lines before it share one table. */
export const OWN_FROM = 10_001;

const VERSION = 1;

/** The index file of a store file (crawldeck.db → crawldeck.log-index.db). */
export function logIndexFile(storeFile: string): string {
  return storeFile.replace(/\.db$/, '') + '.log-index.db';
}

/** The name of a task's own table, from its search number. */
export const ownTable = (seq: number): string => `task_log_fts_${Math.trunc(seq)}`;

/** The definition of a task's own table: contentless (the store holds the text), no per-line sizes (no ranking). */
export const OWN_TABLE_OPTIONS = `msg, content='', columnsize=0, tokenize='trigram'`;

/** Creates the index file and its tables when they do not exist yet. */
export function prepareLogIndex(storeFile: string): void {
  const file = logIndexFile(storeFile);
  const conn = new Database(file);
  try {
    // The index holds pieces of the log lines: as private as the store itself.
    chmodSync(file, 0o600);
    conn.pragma('busy_timeout = 5000');
    if (conn.pragma('user_version', { simple: true }) === VERSION) return;
    conn.pragma('journal_mode = WAL');
    conn.transaction(() => {
      // indexed_line: every line up to this one is in the index; the lines after it are searched by reading them.
      conn.exec(`CREATE TABLE IF NOT EXISTS task_log_search (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id TEXT NOT NULL UNIQUE,
        indexed_line INTEGER NOT NULL DEFAULT 0,
        own_from INTEGER NOT NULL,
        own_table INTEGER NOT NULL DEFAULT 0
      )`);
      conn.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS task_log_fts
        USING fts5(msg, content='', contentless_delete=1, tokenize='trigram')`);
      // A removed entry is only marked (a tombstone) until its segment is merged anyway: merging a segment for
      // its removed entries alone made removal ≈ 14× slower.
      conn.exec(`INSERT INTO task_log_fts (task_log_fts, rank) VALUES ('deletemerge', 0)`);
      // Index entries of tasks that went away, removed in chunks by the indexer (a restart goes on with them).
      conn.exec(`CREATE TABLE IF NOT EXISTS task_log_purge (
        seq INTEGER PRIMARY KEY,
        own_table INTEGER NOT NULL
      )`);
      conn.pragma(`user_version = ${VERSION}`);
    })();
  } finally {
    conn.close();
  }
}

/** Attaches the index file as schema `ix` to a connection on the store's file (read-only if the connection is). */
export function attachLogIndex(conn: Database.Database, storeFile: string): void {
  conn.prepare(`ATTACH DATABASE ? AS ix`).run(logIndexFile(storeFile));
}

import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Substring search over task logs, SQLite only: an FTS5 trigram index without its own copy of the text, filled in
 * the background after the lines are stored (never by the ingest itself), with per task how far it got. A row's
 * index key packs a per-task number (high 32 bits, never reused) and the line number (low 32 bits), so one task's
 * matches are a key range read in line order. PostgreSQL searches scan the task's lines in the database.
 */
export const m2026112420_log_search: EngineMigration = {
  async up(db, t) {
    if (t.engine === 'sqlite') await sqliteTrigramIndex(db);
  },
};

async function sqliteTrigramIndex(db: Kysely<any>): Promise<void> {
  // indexed_line: every line up to this one is in the index; the lines after it are searched by reading them.
  await sql`CREATE TABLE task_log_search (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL UNIQUE,
    indexed_line INTEGER NOT NULL DEFAULT 0
  )`.execute(db);
  await sql`CREATE VIRTUAL TABLE task_log_fts USING fts5(msg, content='', contentless_delete=1, tokenize='trigram')`.execute(
    db,
  );
  // When a task or all its lines go, its number is retired at once (searches only read a live number's keys);
  // the background indexer then removes the retired entries a chunk at a time.
  await sql`CREATE TABLE task_log_search_retired (seq INTEGER PRIMARY KEY)`.execute(db);
  await sql`CREATE TRIGGER task_logs_search_retire AFTER DELETE ON task_logs
    WHEN NOT EXISTS (SELECT 1 FROM task_logs WHERE task_id = old.task_id) BEGIN
    INSERT OR IGNORE INTO task_log_search_retired (seq) SELECT seq FROM task_log_search WHERE task_id = old.task_id;
    DELETE FROM task_log_search WHERE task_id = old.task_id;
  END`.execute(db);
  await sql`CREATE TRIGGER tasks_search_retire AFTER DELETE ON tasks BEGIN
    INSERT OR IGNORE INTO task_log_search_retired (seq) SELECT seq FROM task_log_search WHERE task_id = old.id;
    DELETE FROM task_log_search WHERE task_id = old.id;
  END`.execute(db);
}

import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Substring search over task logs. SQLite: an FTS5 trigram index without its own copy of the text, filled by a
 * trigger on task_logs; a row's index key packs a per-task number (high 32 bits, never reused) and the line number
 * (low 32 bits), so one task's matches are a key range read in line order. PostgreSQL: a pg_trgm GIN index on the
 * message, when the extension can be created; without it searches scan the task's lines as before.
 */
export const m2026112420_log_search: EngineMigration = {
  async up(db, t) {
    if (t.engine === 'postgres') await postgresTrigramIndex(db);
    else await sqliteTrigramIndex(db);
  },
};

async function postgresTrigramIndex(db: Kysely<any>): Promise<void> {
  // Creating an extension may need rights the store's user lacks: then the migration goes on without the index.
  await sql`SAVEPOINT log_search_trgm`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    await sql`CREATE INDEX task_logs_msg_trgm_idx ON task_logs USING gin (msg gin_trgm_ops)`.execute(db);
    await sql`RELEASE SAVEPOINT log_search_trgm`.execute(db);
  } catch {
    await sql`ROLLBACK TO SAVEPOINT log_search_trgm`.execute(db);
  }
}

async function sqliteTrigramIndex(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE task_log_search (seq INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL UNIQUE)`.execute(
    db,
  );
  await sql`CREATE VIRTUAL TABLE task_log_fts USING fts5(msg, content='', contentless_delete=1, tokenize='trigram')`.execute(
    db,
  );
  // Insert-or-replace: a line number stored again (after its line was deleted) replaces its old index entry.
  await sql`CREATE TRIGGER task_logs_search_insert AFTER INSERT ON task_logs BEGIN
    INSERT OR IGNORE INTO task_log_search (task_id) VALUES (new.task_id);
    INSERT OR REPLACE INTO task_log_fts (rowid, msg)
      VALUES ((SELECT seq FROM task_log_search WHERE task_id = new.task_id) * 4294967296 + new.line_no, new.msg);
  END`.execute(db);
  // Removing index entries line by line costs ten times the delete itself (a 1M-line task: seconds on the
  // master's only writer). Instead, when a task's last line goes, its number is retired: searches only ever read
  // the key range of a live number, so the retired entries are never seen; their numbers are kept for a purge.
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
  // Lines stored before this index existed.
  await sql`INSERT OR IGNORE INTO task_log_search (task_id) SELECT DISTINCT task_id FROM task_logs`.execute(db);
  await sql`INSERT INTO task_log_fts (rowid, msg)
    SELECT s.seq * 4294967296 + l.line_no, l.msg FROM task_logs l JOIN task_log_search s ON s.task_id = l.task_id`.execute(
    db,
  );
}

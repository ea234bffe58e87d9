import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * SQLite only: the trigram index of task logs moves out of the store's file into a file of its own beside it,
 * written by the background indexer alone, so the master's writes never wait for the indexer's lock. The store
 * keeps only the list of tasks whose lines went away (the task deleted, or all its lines removed by the log
 * retention): the indexer takes them from there, and a search never reads the index of a task on that list. The
 * old index is dropped here; the indexer builds the new one from the stored lines.
 */
export const m2026112630_log_index_file: EngineMigration = {
  async up(db, t) {
    if (t.engine === 'sqlite') await retiredList(db);
  },
};

async function retiredList(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS task_logs_search_retire`.execute(db);
  await sql`DROP TRIGGER IF EXISTS tasks_search_retire`.execute(db);
  await sql`DROP TABLE IF EXISTS task_log_search_retired`.execute(db);
  await sql`DROP TABLE IF EXISTS task_log_search`.execute(db);
  await sql`DROP TABLE IF EXISTS task_log_fts`.execute(db);
  await sql`CREATE TABLE task_log_retired (task_id TEXT PRIMARY KEY) WITHOUT ROWID`.execute(db);
  await sql`CREATE TRIGGER task_logs_retire AFTER DELETE ON task_logs
    WHEN NOT EXISTS (SELECT 1 FROM task_logs WHERE task_id = old.task_id) BEGIN
    INSERT OR IGNORE INTO task_log_retired (task_id) VALUES (old.task_id);
  END`.execute(db);
  await sql`CREATE TRIGGER tasks_retire AFTER DELETE ON tasks BEGIN
    INSERT OR IGNORE INTO task_log_retired (task_id) VALUES (old.id);
  END`.execute(db);
}

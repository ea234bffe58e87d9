import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * SQLite only: the tasks whose stored log lines may run ahead of the log index, kept by triggers as lines are
 * counted in. The background indexer reads this short list instead of comparing every task with its progress, a
 * walk over the whole tasks table that it made every second once it had nothing to do (on 10M tasks about half of a
 * core). The indexer takes a task off the list once it has indexed all of its lines.
 */
export const m2026112722_task_log_behind: EngineMigration = {
  async up(db, t) {
    if (t.engine === 'sqlite') await behindList(db);
  },
};

async function behindList(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE task_log_behind (task_id TEXT PRIMARY KEY) WITHOUT ROWID`.execute(db);
  // Every task with lines, once: the indexer drops those it has indexed already.
  await sql`INSERT INTO task_log_behind (task_id) SELECT id FROM tasks WHERE log_lines > 0`.execute(db);
  await sql`CREATE TRIGGER tasks_log_behind_insert AFTER INSERT ON tasks WHEN new.log_lines > 0 BEGIN
    INSERT OR IGNORE INTO task_log_behind (task_id) VALUES (new.id);
  END`.execute(db);
  await sql`CREATE TRIGGER tasks_log_behind_update AFTER UPDATE OF log_lines ON tasks
    WHEN new.log_lines > old.log_lines BEGIN
    INSERT OR IGNORE INTO task_log_behind (task_id) VALUES (new.id);
  END`.execute(db);
}

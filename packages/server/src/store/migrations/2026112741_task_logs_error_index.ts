import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * PostgreSQL only: the index that finds a task's error lines holds the error lines alone. It held every line
 * with its error flag, so each stored line cost a second index entry (about a quarter of the database's work per
 * line) for the few that are errors. The one query that reads it asks for `is_error = 1`, which the partial index
 * answers. SQLite keeps its index: there a query's parameter cannot prove a partial index's condition.
 */
export const m2026112741_task_logs_error_index: EngineMigration = {
  async up(db, t) {
    if (t.engine !== 'postgres') return;
    await sql`CREATE INDEX task_logs_errors_idx ON task_logs (task_id, line_no) WHERE is_error = 1`.execute(db);
    await sql`DROP INDEX task_logs_error_idx`.execute(db);
  },
};

import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * SQLite only: how many tasks were created in each minute, kept by triggers as tasks are created and go. The
 * dashboard's daily series sums the last 30 days of these rows (at most 43,200, whatever the store holds) instead of
 * walking every task of the month through the create_ts index on the master's only thread — seconds on a store that
 * takes 100,000 tasks an hour, with every other request waiting. Minutes, not hours or days, so that a day starting
 * at any whole-minute offset from UTC is a sum of whole rows. PostgreSQL counts in the database server while the
 * master goes on, without a counter row every task transaction would queue on.
 */
export const m2026120890_task_minute_counts: EngineMigration = {
  async up(db, t) {
    if (t.engine !== 'sqlite') return;
    await sql`CREATE TABLE task_minute_counts (minute INTEGER PRIMARY KEY, n INTEGER NOT NULL)`.execute(db);
    await sql`INSERT INTO task_minute_counts (minute, n)
      SELECT create_ts / 60000, COUNT(*) FROM tasks GROUP BY 1`.execute(db);
    await sql`CREATE TRIGGER tasks_minute_count_insert AFTER INSERT ON tasks BEGIN
      INSERT INTO task_minute_counts (minute, n) VALUES (new.create_ts / 60000, 1)
        ON CONFLICT (minute) DO UPDATE SET n = n + 1;
    END`.execute(db);
    await sql`CREATE TRIGGER tasks_minute_count_delete AFTER DELETE ON tasks BEGIN
      UPDATE task_minute_counts SET n = n - 1 WHERE minute = old.create_ts / 60000;
    END`.execute(db);
    await sql`CREATE TRIGGER tasks_minute_count_moved AFTER UPDATE OF create_ts ON tasks
      WHEN new.create_ts IS NOT old.create_ts BEGIN
      UPDATE task_minute_counts SET n = n - 1 WHERE minute = old.create_ts / 60000;
      INSERT INTO task_minute_counts (minute, n) VALUES (new.create_ts / 60000, 1)
        ON CONFLICT (minute) DO UPDATE SET n = n + 1;
    END`.execute(db);
  },
};

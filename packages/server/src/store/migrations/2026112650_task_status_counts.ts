import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * SQLite only: how many tasks hold each status, kept by triggers as tasks are created, change status and go. The
 * dashboard and the /metrics gauges read it instead of counting the tasks table, which on SQLite runs on the
 * master's only thread: ≈ 0.4 s at 1M tasks and seconds at 10M, with every request waiting. SQLite has one writer,
 * so the counter rows never contend. PostgreSQL counts in the database server while the master goes on, and a
 * counter row there would be a lock every task transaction of every master queues on.
 */
export const m2026112650_task_status_counts: EngineMigration = {
  async up(db, t) {
    if (t.engine === 'sqlite') await statusCounts(db);
  },
};

async function statusCounts(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE task_status_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO task_status_counts (status, n) SELECT status, COUNT(*) FROM tasks GROUP BY status`.execute(db);
  await sql`CREATE TRIGGER tasks_count_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO task_status_counts (status, n) VALUES (new.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
  END`.execute(db);
  await sql`CREATE TRIGGER tasks_count_delete AFTER DELETE ON tasks BEGIN
    UPDATE task_status_counts SET n = n - 1 WHERE status = old.status;
  END`.execute(db);
  await sql`CREATE TRIGGER tasks_count_status AFTER UPDATE OF status ON tasks WHEN new.status IS NOT old.status BEGIN
    UPDATE task_status_counts SET n = n - 1 WHERE status = old.status;
    INSERT INTO task_status_counts (status, n) VALUES (new.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
  END`.execute(db);
}

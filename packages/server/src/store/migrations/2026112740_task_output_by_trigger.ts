import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * PostgreSQL only: a task's log lines and items are no longer checked row by row against the tasks table (items
 * against the spiders table too), and go with their task by a trigger instead of a cascading foreign key. The
 * check cost as much as storing the row itself (a lookup in tasks for every line of every batch, about half of
 * the database's work per log line), and
 * it proved nothing the ingest does not hold already: a batch is stored in the transaction that locked its task
 * row, so the task exists until the lines are in, and a deletion of the task waits for that lock. The trigger
 * deletes what the cascade deleted, in the same statement that deletes the task (a deleted spider's tasks go by
 * their own cascade, and their items with them). SQLite keeps its foreign keys:
 * dropping one there means copying the whole table, and its ingest runs on the master's own thread anyway.
 */
export const m2026112740_task_output_by_trigger: EngineMigration = {
  async up(db, t) {
    if (t.engine === 'postgres') await outputByTrigger(db);
  },
};

async function outputByTrigger(db: Kysely<any>): Promise<void> {
  await sql`DO $$ DECLARE c record; BEGIN
    FOR c IN SELECT conrelid::regclass::text AS tab, conname FROM pg_constraint
      WHERE contype = 'f' AND confrelid IN ('tasks'::regclass, 'spiders'::regclass) AND conrelid IN ('task_logs'::regclass, 'results'::regclass)
    LOOP
      EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', c.tab, c.conname);
    END LOOP;
  END $$`.execute(db);
  await sql`CREATE FUNCTION tasks_delete_output() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    DELETE FROM task_logs WHERE task_id = old.id;
    DELETE FROM results WHERE task_id = old.id;
    RETURN old;
  END $$`.execute(db);
  await sql`CREATE TRIGGER tasks_delete_output AFTER DELETE ON tasks
    FOR EACH ROW EXECUTE FUNCTION tasks_delete_output()`.execute(db);
}

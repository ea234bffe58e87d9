import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * PostgreSQL only: a task's log lines and items go with it by one trigger call per DELETE statement on tasks
 * instead of one per deleted task. The row trigger ran two DELETE statements for every deleted task, even one
 * without output (most of a spider's purge round: about 40 % of its time); the statement trigger reads the deleted
 * tasks from the statement's transition table and deletes their lines and items in one statement each, each an
 * index scan of `task_id = ANY (…)` (the primary key of task_logs, results_task_idx).
 *
 * What the row trigger guaranteed still holds (ADR 0016): it fires at the end of the deleting statement, as the
 * row trigger's calls did, after the statement waited for the lock of every task row it deletes; a batch of output
 * is stored in the transaction that holds its task row's lock, so every batch stored before the deletion has
 * committed, and each DELETE of the trigger reads with a fresh snapshot that sees it. A batch that comes later
 * finds no task row and is refused. SQLite keeps its cascading foreign keys.
 */
export const m2026112900_task_output_by_statement: EngineMigration = {
  async up(db, t) {
    if (t.engine !== 'postgres') return;
    await sql`DROP TRIGGER tasks_delete_output ON tasks`.execute(db);
    await sql`DROP FUNCTION tasks_delete_output()`.execute(db);
    // ARRAY(…) and not IN (SELECT …): the plan is made once per session and kept, whatever the size of the
    // transition table it first met; an array compared by `= ANY` is looked up in the index for any size.
    await sql`CREATE FUNCTION tasks_delete_output() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      DELETE FROM task_logs WHERE task_id = ANY (ARRAY(SELECT id FROM deleted_tasks));
      DELETE FROM results WHERE task_id = ANY (ARRAY(SELECT id FROM deleted_tasks));
      RETURN NULL;
    END $$`.execute(db);
    await sql`CREATE TRIGGER tasks_delete_output AFTER DELETE ON tasks
      REFERENCING OLD TABLE AS deleted_tasks FOR EACH STATEMENT EXECUTE FUNCTION tasks_delete_output()`.execute(db);
  },
};

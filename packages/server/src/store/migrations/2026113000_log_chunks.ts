import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * PostgreSQL only: a trigram index over long task logs, by chunks of lines, so a search for a rare word reads the
 * few chunks that may hold it instead of every line.
 *
 * - `task_log_chunks`: a task's lines first…last, joined by newlines and lower-cased, one row per chunk. A trigram
 *   index on (task, text) finds the chunks that may hold a word; the search then reads those chunks only. It is the
 *   table's only index: a search has no other way in, however old the table's statistics (a B-tree on the task
 *   looked cheaper to the planner for a task it took for small, and read every chunk of a long log). The text is
 *   lower-cased once here, so the index's check of a chunk is a plain LIKE (ILIKE lower-cases every chunk it
 *   checks, about 30 times the cost). A background indexer of the master fills the table after the ingest stored
 *   the lines, never the ingest itself: a trigram index written with every line cut the ingest to a third.
 *   `plain`: the chunk holds all its lines and none of them holds a newline, so the text splits back into its lines
 *   and a search counts and places the matches from the text alone, without reading the lines.
 * - `task_log_chunk_progress`: per task, the last line its chunks hold; written with the chunks.
 * - `task_log_chunks_behind`: the tasks whose log grew past 20 000 lines since the indexer last caught up, kept by
 *   a trigger on the count of stored lines. Shorter logs are read line by line in a few tens of milliseconds and
 *   are not indexed at all.
 * - A task's chunks, progress and place on the list go with the task, in the statement trigger that removes its
 *   lines.
 *
 * pg_trgm and btree_gin come with PostgreSQL's contrib modules and are trusted extensions (the database's owner
 * may create them). Where they are missing the tables are made without the trigram index and searches read the
 * lines, as before.
 */
export const m2026113000_log_chunks: EngineMigration = {
  async up(db, t) {
    if (t.engine !== 'postgres') return;
    await sql`CREATE TABLE task_log_chunks (
      task_id TEXT NOT NULL,
      first_line INTEGER NOT NULL,
      last_line INTEGER NOT NULL,
      plain BOOLEAN NOT NULL,
      body TEXT NOT NULL
    )`.execute(db);
    if (await createExtensions(db)) {
      await sql`CREATE INDEX task_log_chunks_trgm ON task_log_chunks USING gin (task_id, body gin_trgm_ops)`.execute(
        db,
      );
    }
    await sql`CREATE TABLE task_log_chunk_progress (task_id TEXT PRIMARY KEY, chunked_through INTEGER NOT NULL)`.execute(
      db,
    );
    await sql`CREATE TABLE task_log_chunks_behind (task_id TEXT PRIMARY KEY)`.execute(db);
    await sql`INSERT INTO task_log_chunks_behind (task_id) SELECT id FROM tasks WHERE log_lines >= 20000`.execute(db);
    await sql`CREATE FUNCTION tasks_log_chunks_behind() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO task_log_chunks_behind (task_id) VALUES (new.id) ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
    await sql`CREATE TRIGGER tasks_log_chunks_behind AFTER UPDATE OF log_lines ON tasks FOR EACH ROW
      WHEN (new.log_lines >= 20000 AND new.log_lines > old.log_lines)
      EXECUTE FUNCTION tasks_log_chunks_behind()`.execute(db);
    await sql`CREATE OR REPLACE FUNCTION tasks_delete_output() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      DELETE FROM task_logs WHERE task_id = ANY (ARRAY(SELECT id FROM deleted_tasks));
      DELETE FROM results WHERE task_id = ANY (ARRAY(SELECT id FROM deleted_tasks));
      DELETE FROM task_log_chunks WHERE task_id = ANY (ARRAY(SELECT id FROM deleted_tasks));
      DELETE FROM task_log_chunk_progress WHERE task_id = ANY (ARRAY(SELECT id FROM deleted_tasks));
      DELETE FROM task_log_chunks_behind WHERE task_id = ANY (ARRAY(SELECT id FROM deleted_tasks));
      RETURN NULL;
    END $$`.execute(db);
  },
};

/** Creates pg_trgm and btree_gin when the server has them and the store's role may; whether both are there. */
async function createExtensions(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_available_extensions
    WHERE name IN ('pg_trgm', 'btree_gin')`.execute(db);
  if (rows[0].n < 2) return false;
  // Migrations run in one transaction: a refusal is rolled back to here and the rest goes on.
  await sql`SAVEPOINT log_chunk_extensions`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    await sql`CREATE EXTENSION IF NOT EXISTS btree_gin`.execute(db);
    await sql`RELEASE SAVEPOINT log_chunk_extensions`.execute(db);
    return true;
  } catch {
    await sql`ROLLBACK TO SAVEPOINT log_chunk_extensions`.execute(db);
    return false;
  }
}

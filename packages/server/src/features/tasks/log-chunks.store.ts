import { sql, type Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/**
 * The trigram index of long task logs on PostgreSQL, by chunks of lines (see the log_chunks migration): what the
 * background indexer writes and what a search asks of it. A chunk holds lines first…first + CHUNK_LINES - 1 of one
 * task, lower-cased and joined by newlines; a task's chunks follow each other from line 1 without gaps, and its
 * progress row tells how far they reach. Lines after that (never a whole chunk once the indexer caught up, more
 * while it is behind) are read one by one.
 */
export const CHUNK_LINES = 128;

/** Only one master indexes at a time: it holds this transaction-level advisory lock ("crawldeck:log-chunks"). */
export const INDEXER_LOCK = 0x6c6f_6763_686bn;

/** Whether the store has the trigram index (PostgreSQL without pg_trgm has the tables, not the index). */
export async function chunkIndexExists(db: Kysely<DB>): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_indexes
    WHERE schemaname = current_schema() AND indexname = 'task_log_chunks_trgm'`.execute(db);
  return rows[0].n > 0;
}

/** The last line the task's chunks hold (0: none yet). */
export async function chunkedThrough(db: Kysely<DB>, taskId: string): Promise<number> {
  const { rows } = await sql<{ chunked_through: number }>`SELECT chunked_through FROM task_log_chunk_progress
    WHERE task_id = ${taskId}`.execute(db);
  return rows[0]?.chunked_through ?? 0;
}

/** A chunk a search found: its lines, and whether its text splits back into them (see the migration). */
export interface ChunkFound {
  first_line: number;
  last_line: number;
  plain: boolean;
}

/**
 * The chunks of the task (up to line `through`) that may hold the keyword, in line order, at most `limit` + 1 of
 * them (more than `limit`: the word is frequent, reading the lines in order finds its page sooner). A LIKE on the
 * lower-cased text finds every chunk holding a line the search's ILIKE matches: ILIKE compares lower-cased text too.
 */
export async function chunksWith(
  db: Kysely<DB>,
  taskId: string,
  pattern: string,
  through: number,
  limit: number,
): Promise<ChunkFound[]> {
  const { rows } = await sql<ChunkFound>`SELECT first_line, last_line, plain
    FROM task_log_chunks WHERE task_id = ${taskId} AND body LIKE lower(${pattern}) AND last_line <= ${through}
    LIMIT ${limit + 1}`.execute(db);
  return rows.sort((a, b) => a.first_line - b.first_line);
}

/** What one round of the indexer did. */
export type IndexRound =
  | { kind: 'busy' } // another master holds the indexer's lock
  | { kind: 'idle' } // no task is behind
  | { kind: 'indexed'; lines: number }
  | { kind: 'caught-up' }; // a task left the list of tasks behind

/**
 * One round of the indexer, in one transaction: the first task on the list of tasks behind gets its next whole
 * chunks, at most `maxLines` lines, built from its stored lines by the database itself. A task without a whole chunk
 * left to index (or whose lines are gone) is taken off the list.
 */
export async function indexNextChunks(db: Kysely<DB>, maxLines: number): Promise<IndexRound> {
  const chunks = Math.max(1, Math.floor(maxLines / CHUNK_LINES));
  const round = await db.transaction().execute(async (trx): Promise<IndexRound | { kind: 'done'; taskId: string }> => {
    const { rows: lock } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${INDEXER_LOCK}) AS ok`.execute(
      trx,
    );
    if (!lock[0].ok) return { kind: 'busy' };
    const { rows: next } = await sql<{ task_id: string; log_lines: number | null }>`SELECT b.task_id, t.log_lines
      FROM task_log_chunks_behind b LEFT JOIN tasks t ON t.id = b.task_id LIMIT 1`.execute(trx);
    if (!next.length) return { kind: 'idle' };
    const { task_id: taskId, log_lines: logLines } = next[0];
    const from = await chunkedThrough(trx, taskId);
    const whole = Math.min(chunks, Math.floor(((logLines ?? 0) - from) / CHUNK_LINES));
    if (whole < 1) return { kind: 'done', taskId };
    const through = from + whole * CHUNK_LINES;
    const inserted = await sql`INSERT INTO task_log_chunks (task_id, first_line, last_line, plain, body)
      SELECT ${taskId}::text, ${from + 1}::int + g * ${CHUNK_LINES}::int, ${from + CHUNK_LINES}::int + g * ${CHUNK_LINES}::int,
        count(*) = ${CHUNK_LINES} AND bool_and(strpos(msg, E'\\n') = 0), lower(string_agg(msg, E'\\n' ORDER BY line_no))
      FROM (SELECT (line_no - ${from + 1}::int) / ${CHUNK_LINES}::int AS g, line_no, msg FROM task_logs
        WHERE task_id = ${taskId} AND line_no > ${from} AND line_no <= ${through}) l
      GROUP BY g`.execute(trx);
    // No line in the range: the log retention removed them; the task has nothing left to index.
    if (!Number(inserted.numAffectedRows ?? 0)) {
      await sql`DELETE FROM task_log_chunks_behind WHERE task_id = ${taskId}`.execute(trx);
      return { kind: 'caught-up' };
    }
    await sql`INSERT INTO task_log_chunk_progress (task_id, chunked_through) VALUES (${taskId}, ${through})
      ON CONFLICT (task_id) DO UPDATE SET chunked_through = excluded.chunked_through`.execute(trx);
    return { kind: 'indexed', lines: whole * CHUNK_LINES };
  });
  if (round.kind !== 'done') return round;
  await dropCaughtUp(db, round.taskId);
  return { kind: 'caught-up' };
}

/**
 * Takes a task off the list of tasks behind unless it has a whole chunk to index. The share lock on its row waits
 * for a batch of lines being stored, so the count read is the latest: lines stored afterwards put the task back.
 */
async function dropCaughtUp(db: Kysely<DB>, taskId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT 1 FROM tasks WHERE id = ${taskId} FOR SHARE`.execute(trx);
    const from = await chunkedThrough(trx, taskId);
    await sql`DELETE FROM task_log_chunks_behind WHERE task_id = ${taskId}
      AND NOT EXISTS (SELECT 1 FROM tasks WHERE id = ${taskId} AND log_lines >= ${from + CHUNK_LINES})`.execute(trx);
  });
}

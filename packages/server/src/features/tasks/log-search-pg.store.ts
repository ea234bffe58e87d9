import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { CHUNK_LINES, chunkedThrough, chunksWith } from './log-chunks.store.ts';
import {
  containsPattern,
  MATCH_COUNT_CAP,
  trigramsServe,
  type LogSearchAnswer,
  type LogSearchJob,
} from './log-search.store.ts';
import type { StoredLogLine } from './tasks.store.ts';

/**
 * Above this many chunks that may hold the keyword, or above this share of the task's chunks, the lines are read in
 * order instead: the word is frequent, so its page and the first MATCH_COUNT_CAP matches come soon in line order,
 * while the chunks' lines are all read before their matches are sorted into a page.
 */
const MAX_CHUNKS_READ = 2048;
const MAX_CHUNK_SHARE = 0.25;

const QUERY_CANCELED = '57014';
const cancelled = (err: unknown) => (err as { code?: unknown } | null)?.code === QUERY_CANCELED;

/**
 * How the planner plans a search's statements. Without JIT compilation: the planner prices a range of a long log by
 * the log's size, so the search's short statements passed JIT's threshold and spent 40–90 ms compiling for 1 ms of
 * work. Without sequential scans: every statement reads one task's lines, which the primary key (task_id, line_no)
 * reaches directly; for a frequent word in a log that is a large share of the store, the planner would rather scan
 * the whole table from its start, hoping the LIMIT fills soon, and pass every other task's lines first (seconds on
 * a store of millions of lines, growing with the store instead of with the log).
 */
export const SEARCH_PLANNER_SETTINGS = sql`SET LOCAL jit = off; SET LOCAL enable_seqscan = off`;

/** Runs statements in a transaction under PostgreSQL's statement timeout; undefined when the timeout cancelled one. */
async function withinTimeout<T>(db: Kysely<DB>, ms: number, run: (trx: Kysely<DB>) => Promise<T>) {
  try {
    return await db.transaction().execute(async (trx) => {
      const timeout = sql.lit(Math.max(1, Math.ceil(ms)));
      await sql`SET LOCAL statement_timeout = ${timeout}`.execute(trx);
      await SEARCH_PLANNER_SETTINGS.execute(trx);
      return { value: await run(trx) };
    });
  } catch (err) {
    if (cancelled(err)) return undefined;
    throw err;
  }
}

/** The page of the matches and their count, capped; each statement runs on its own connection, side by side. */
interface MatchQueries {
  page(trx: Kysely<DB>): Promise<StoredLogLine[]>;
  count(trx: Kysely<DB>, cap: number): Promise<number>;
}

/** The statement that counts the task's matching lines, up to `cap` + 1, when every line is read. */
export function everyLineCount(trx: Kysely<DB>, job: Pick<LogSearchJob, 'taskId' | 'keyword'>, cap: number) {
  return trx
    .selectFrom(
      everyLineMatch(trx, job)
        .select(sql<number>`1`.as('one'))
        .limit(cap + 1)
        .as('m'),
    )
    .select(sql<number>`count(*)`.as('n'));
}

function everyLineMatch(trx: Kysely<DB>, job: Pick<LogSearchJob, 'taskId' | 'keyword'>) {
  return trx
    .selectFrom('task_logs')
    .where('task_id', '=', job.taskId)
    .where(sql<boolean>`msg ilike ${containsPattern(job.keyword)}`);
}

/** Every line of the task in line order (the index on task and line gives the order, so a page stops early). */
function everyLine(job: LogSearchJob): MatchQueries {
  const matches = (trx: Kysely<DB>) => everyLineMatch(trx, job);
  return {
    page: (trx) =>
      matches(trx)
        .select(['line_no', 'msg', 'is_error'])
        .orderBy('line_no')
        .limit(job.limit)
        .offset(job.offset)
        .execute(),
    count: async (trx, cap) => Number((await everyLineCount(trx, job, cap).executeTakeFirstOrThrow()).n),
  };
}

/**
 * What the chunk index leaves to read: the plain chunks that may hold the keyword, up to line `bodiesThrough`, are
 * read from their text; the lines of ranges lo[i]…hi[i] (other chunks found, the lines after the index) from the
 * stored lines.
 */
interface ChunkPlan {
  bodiesThrough: number;
  lo: number[];
  hi: number[];
}

/**
 * The matches a chunk plan leaves: in plain chunks, the lines of the lower-cased text that hold the lower-cased
 * keyword, numbered from the chunk's first line (PostgreSQL's ILIKE matches exactly the lines whose lower-cased text
 * LIKE matches the lower-cased pattern); in the ranges, the stored lines, read through the index on task and line.
 * The chunks are found again by the same condition as the plan's: chunks up to the index's end never change.
 * OFFSET 0 keeps each range and each line of the page a lookup of its own: merged into one join, the planner may
 * read every line of the task and try each against every range.
 */
function someLines(job: LogSearchJob, plan: ChunkPlan): MatchQueries {
  const pattern = containsPattern(job.keyword);
  const hits: RawBuilder<unknown> = sql`(SELECT c.first_line + x.n::int - 1 AS line_no FROM task_log_chunks c
      CROSS JOIN LATERAL unnest(string_to_array(c.body, E'\\n')) WITH ORDINALITY AS x(line, n)
      WHERE c.task_id = ${job.taskId} AND c.body LIKE lower(${pattern}) AND c.plain
        AND c.last_line <= ${plan.bodiesThrough} AND x.line LIKE lower(${pattern})
    UNION ALL
    SELECT l.line_no FROM unnest(${plan.lo}::int[], ${plan.hi}::int[]) AS r(lo, hi)
      CROSS JOIN LATERAL (SELECT line_no FROM task_logs WHERE task_id = ${job.taskId}
        AND line_no BETWEEN r.lo AND r.hi AND msg ILIKE ${pattern} OFFSET 0) l)`;
  return {
    page: async (trx) =>
      (
        await sql<StoredLogLine>`SELECT p.line_no, l.msg, l.is_error
          FROM (SELECT line_no FROM ${hits} h ORDER BY line_no LIMIT ${job.limit} OFFSET ${job.offset}) p
          CROSS JOIN LATERAL (SELECT msg, is_error FROM task_logs WHERE task_id = ${job.taskId}
            AND line_no = p.line_no OFFSET 0) l
          ORDER BY p.line_no`.execute(trx)
      ).rows,
    count: async (trx, cap) =>
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM (SELECT 1 FROM ${hits} h LIMIT ${cap + 1}) m`.execute(trx))
          .rows[0].n,
      ),
  };
}

/**
 * What the chunk index leaves to read, or undefined when it does not help: no chunk of the task yet, a keyword too
 * short for trigrams, or a frequent one. Chunks are only added, after the last one: those read here all end at or
 * before the end of the index read first.
 */
async function chunkPlan(trx: Kysely<DB>, job: LogSearchJob): Promise<ChunkPlan | undefined> {
  const through = await chunkedThrough(trx, job.taskId);
  if (!through) return undefined;
  const most = Math.min(MAX_CHUNKS_READ, Math.floor((through / CHUNK_LINES) * MAX_CHUNK_SHARE));
  const chunks = await chunksWith(trx, job.taskId, containsPattern(job.keyword), through, most);
  if (chunks.length > most) return undefined;
  const plan: ChunkPlan = { bodiesThrough: Math.min(through, job.lastLine), lo: [], hi: [] };
  for (const c of chunks) {
    if (c.first_line > job.lastLine) break;
    if (c.plain && c.last_line <= plan.bodiesThrough) continue;
    plan.lo.push(c.first_line);
    plan.hi.push(Math.min(c.last_line, job.lastLine));
  }
  if (through < job.lastLine) {
    plan.lo.push(through + 1);
    plan.hi.push(job.lastLine);
  }
  return plan;
}

/**
 * Searches one task's log on PostgreSQL, in the database server. With the chunk index (`chunks`), a keyword of three
 * characters or more first asks which chunks may hold it; when they are few, only their lines and those after the
 * index are read, so a rare word in a long log costs about what its matches cost. Otherwise every line is read in
 * order (ILIKE over the task's lines). Then the page and the count run side by side, each under a statement
 * timeout of what is left of the budget. The count stops past MATCH_COUNT_CAP (or past the asked page, if that
 * lies further) and answers that many, marked partial; so does a count cut short, with the matches known to exist
 * (those before and on the page).
 */
export async function searchPostgresLog(db: Kysely<DB>, job: LogSearchJob, chunks: boolean): Promise<LogSearchAnswer> {
  const deadline = performance.now() + job.budgetMs;
  const left = () => deadline - performance.now();
  const plan =
    chunks && trigramsServe(job.keyword) ? await withinTimeout(db, left(), (trx) => chunkPlan(trx, job)) : undefined;
  const queries = plan?.value ? someLines(job, plan.value) : everyLine(job);
  const countCap = Math.max(MATCH_COUNT_CAP, job.offset + job.limit);
  const [page, count] = await Promise.all([
    withinTimeout(db, left(), (trx) => queries.page(trx)),
    withinTimeout(db, left(), (trx) => queries.count(trx, countCap)),
  ]);
  const rows = page?.value ?? [];
  if (!count) return { rows, total: rows.length ? job.offset + rows.length : 0, partial: true };
  const n = count.value;
  return n > countCap ? { rows, total: countCap, partial: true } : { rows, total: n, partial: !page };
}

import type { ScrapyStatsSample } from '@crawldeck/shared';
import type { Kysely, Transaction } from 'kysely';
import type { Engine } from '../../store/db.ts';
import type { DB } from '../../store/schema.ts';
import type { ScrapyParseState } from './scrapy-log-parser.ts';

/** The tables of this feature (migration 2026112230_scrapy_stats). */
type ScrapyStatsTables = {
  scrapy_task_stats: {
    task_id: string;
    spider_id: string;
    is_scrapy: number;
    parsed_lines: number;
    /** JSON of ScrapyParseState. */
    state: string;
    samples: number;
    update_ts: number;
  };
  scrapy_task_samples: ScrapyStatsSample & { task_id: string; seq: number };
};

type StatsDB = DB & ScrapyStatsTables;

function own(db: Kysely<DB> | Transaction<DB>): Kysely<StatsDB> {
  return (db as Kysely<DB>).withTables<ScrapyStatsTables>();
}

export interface StoredStats {
  taskId: string;
  spiderId: string;
  isScrapy: boolean;
  parsedLines: number;
  state: ScrapyParseState;
  samples: number;
}

function toStored(r: ScrapyStatsTables['scrapy_task_stats']): StoredStats {
  return {
    taskId: r.task_id,
    spiderId: r.spider_id,
    isScrapy: r.is_scrapy === 1,
    parsedLines: r.parsed_lines,
    state: JSON.parse(r.state) as ScrapyParseState,
    samples: r.samples,
  };
}

export async function readStats(db: Kysely<DB>, taskId: string): Promise<StoredStats | undefined> {
  const r = await own(db).selectFrom('scrapy_task_stats').selectAll().where('task_id', '=', taskId).executeTakeFirst();
  return r && toStored(r);
}

/** The task's stats row, locked for this transaction on PostgreSQL (SQLite runs one writer at a time). */
export async function lockStats(
  trx: Transaction<DB>,
  engine: Engine,
  taskId: string,
): Promise<StoredStats | undefined> {
  let q = own(trx).selectFrom('scrapy_task_stats').selectAll().where('task_id', '=', taskId);
  if (engine === 'postgres') q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r && toStored(r);
}

/** Creates the row of a task seen for the first time; a row another master created meanwhile stays. */
export async function createStats(
  trx: Transaction<DB>,
  taskId: string,
  spiderId: string,
  isScrapy: boolean,
  state: ScrapyParseState,
): Promise<void> {
  await own(trx)
    .insertInto('scrapy_task_stats')
    .values({
      task_id: taskId,
      spider_id: spiderId,
      is_scrapy: isScrapy ? 1 : 0,
      parsed_lines: 0,
      state: JSON.stringify(state),
      samples: 0,
      update_ts: Date.now(),
    })
    .onConflict((oc) => oc.column('task_id').doNothing())
    .execute();
}

/** What the parser needs to know about a task: its spider, whether that is a Scrapy spider, how many lines it has. */
export async function taskForParsing(trx: Transaction<DB> | Kysely<DB>, taskId: string) {
  return trx
    .selectFrom('tasks')
    .leftJoin('spiders', 'spiders.id', 'tasks.spider_id')
    .select(['tasks.spider_id', 'tasks.log_lines', 'spiders.is_scrapy'])
    .where('tasks.id', '=', taskId)
    .executeTakeFirst();
}

/** Log lines `after+1 … after+limit` of a task, in order. */
export async function logLinesAfter(
  trx: Transaction<DB>,
  taskId: string,
  after: number,
  limit: number,
): Promise<string[]> {
  const rows = await trx
    .selectFrom('task_logs')
    .select('msg')
    .where('task_id', '=', taskId)
    .where('line_no', '>', after)
    .where('line_no', '<=', after + limit)
    .orderBy('line_no')
    .execute();
  return rows.map((r) => r.msg);
}

export async function saveProgress(
  trx: Transaction<DB>,
  s: StoredStats,
  newSamples: ScrapyStatsSample[],
): Promise<void> {
  const db = own(trx);
  if (newSamples.length) {
    await db
      .insertInto('scrapy_task_samples')
      .values(newSamples.map((x, i) => ({ task_id: s.taskId, seq: s.samples + i + 1, ...x })))
      .execute();
  }
  await db
    .updateTable('scrapy_task_stats')
    .set({
      parsed_lines: s.parsedLines,
      state: JSON.stringify(s.state),
      samples: s.samples + newSamples.length,
      update_ts: Date.now(),
    })
    .where('task_id', '=', s.taskId)
    .execute();
}

export async function readSamples(db: Kysely<DB>, taskId: string): Promise<ScrapyStatsSample[]> {
  return own(db)
    .selectFrom('scrapy_task_samples')
    .select(['at', 'pages', 'items', 'pages_per_min', 'items_per_min'])
    .where('task_id', '=', taskId)
    .orderBy('seq')
    .execute();
}

/** The latest tasks of a spider with their stats rows (none for tasks not parsed yet). */
export async function latestRunsOfSpider(db: Kysely<DB>, spiderId: string, limit: number) {
  return own(db)
    .selectFrom('tasks')
    .leftJoin('scrapy_task_stats', 'scrapy_task_stats.task_id', 'tasks.id')
    .select([
      'tasks.id',
      'tasks.status',
      'tasks.create_ts',
      'tasks.error_lines',
      'tasks.result_count',
      'scrapy_task_stats.state',
    ])
    .where('tasks.spider_id', '=', spiderId)
    .orderBy('tasks.create_ts', 'desc')
    .limit(limit)
    .execute();
}

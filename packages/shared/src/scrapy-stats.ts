import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Int } from './bounds.ts';

/**
 * Statistics of a Scrapy run, read from its log as it streams: the periodic "Crawled N pages (at N pages/min),
 * scraped N items (at N items/min)" lines, the responses and log records as they are printed, and the stats dict
 * Scrapy dumps when the spider closes (finish reason, elapsed time, memory, item counts).
 */

/** `{ status: 'ok', message, data }` of a route answering `data`. */
export const OkEnvelope = <T extends TSchema>(data: T) =>
  Type.Object({ status: Type.Literal('ok'), message: Type.String(), data, total: Type.Optional(Type.Integer()) });

/** A count per key: HTTP status (`"200"`), log level (`"ERROR"`). */
export const CountMap = Type.Record(Type.String(), Type.Integer());

/** One "Crawled … scraped …" line: totals so far and the rates Scrapy computed over its last interval. */
export const ScrapyStatsSample = Type.Object({
  /** The time printed on the log line (the spider host's clock, `YYYY-MM-DD HH:MM:SS`); empty when it had none. */
  at: Type.String(),
  pages: Type.Integer(),
  items: Type.Integer(),
  pages_per_min: Type.Integer(),
  items_per_min: Type.Integer(),
});
export type ScrapyStatsSample = Static<typeof ScrapyStatsSample>;

/** The values of the closing stats dump that the Stats tab shows on their own; null until the dump is read. */
export const ScrapyFinalStats = Type.Object({
  finish_reason: Type.Union([Type.String(), Type.Null()]),
  elapsed_time_seconds: Type.Union([Type.Number(), Type.Null()]),
  memusage_max: Type.Union([Type.Number(), Type.Null()]),
  item_scraped_count: Type.Union([Type.Integer(), Type.Null()]),
  response_received_count: Type.Union([Type.Integer(), Type.Null()]),
  /** Every numeric or text entry of the dump, keyed as Scrapy names it (`downloader/request_count`). */
  entries: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()])),
});
export type ScrapyFinalStats = Static<typeof ScrapyFinalStats>;

export const TaskScrapyStats = Type.Object({
  task_id: Type.String(),
  /** False for a task whose spider is not a Scrapy spider: nothing is parsed, every count stays 0. */
  is_scrapy: Type.Boolean(),
  /** Log lines read so far. */
  parsed_lines: Type.Integer(),
  /** Pages and items of the latest "Crawled …" line (the closing dump's counts once it is read). */
  pages: Type.Integer(),
  items: Type.Integer(),
  /** Responses by HTTP status, counted from "Crawled (200)" lines, replaced by the dump's counts at the end. */
  status_counts: CountMap,
  /** Log records by level (DEBUG, INFO, WARNING, ERROR, CRITICAL). */
  level_counts: CountMap,
  samples: Type.Array(ScrapyStatsSample),
  final: Type.Union([ScrapyFinalStats, Type.Null()]),
});
export type TaskScrapyStats = Static<typeof TaskScrapyStats>;
export const TaskScrapyStatsResponse = OkEnvelope(TaskScrapyStats);

/** One finished-or-running Scrapy run of a spider, for the spider's Analytics tab. */
export const SpiderScrapyRun = Type.Object({
  task_id: Type.String(),
  status: Type.String(),
  /** ISO time the task was created. */
  create_ts: Type.String(),
  pages: Type.Integer(),
  items: Type.Integer(),
  errors: Type.Integer(),
  finish_reason: Type.Union([Type.String(), Type.Null()]),
  elapsed_time_seconds: Type.Union([Type.Number(), Type.Null()]),
  memusage_max: Type.Union([Type.Number(), Type.Null()]),
});
export type SpiderScrapyRun = Static<typeof SpiderScrapyRun>;

export const SpiderScrapyRunsQuery = Type.Object({
  /** How many of the latest runs (default 30). */
  limit: Type.Optional(Int(1, 200)),
});
export type SpiderScrapyRunsQuery = Static<typeof SpiderScrapyRunsQuery>;

/** Latest runs first. */
export const SpiderScrapyRunsResponse = OkEnvelope(Type.Array(SpiderScrapyRun));

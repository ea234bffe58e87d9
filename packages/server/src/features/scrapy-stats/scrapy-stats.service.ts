import type { ScrapyFinalStats, SpiderScrapyRun, TaskScrapyStats } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { iso } from '../../http/envelope.ts';
import { inTransaction } from '../../store/query-helpers.ts';
import { emptyParseState, parseScrapyLines, type ScrapyParseState } from './scrapy-log-parser.ts';
import {
  createStats,
  latestRunsOfSpider,
  lockStats,
  logLinesAfter,
  readSamples,
  readStats,
  saveProgress,
  taskForParsing,
} from './scrapy-stats.store.ts';

/** Lines read per transaction: a long log is caught up in steps that each hold the row lock briefly. */
const CHUNK_LINES = 2000;
/** Samples kept per task: Scrapy prints one a minute, so this covers days; a spider printing more is cut. */
const MAX_SAMPLES = 5000;

/**
 * Reads one chunk of a task's new log lines into its stats. Returns whether more lines wait. The parsed-line
 * count is stored with the counts in one transaction, so a line is read once even across restarts and masters.
 */
async function parseChunk(ctx: AppContext, taskId: string): Promise<boolean> {
  return inTransaction(ctx.store.db, async (trx) => {
    const task = await taskForParsing(trx, taskId);
    if (!task) return false;
    let s = await lockStats(trx, ctx.store.engine, taskId);
    if (!s) {
      await createStats(trx, taskId, task.spider_id, task.is_scrapy === 1, emptyParseState());
      s = await lockStats(trx, ctx.store.engine, taskId);
    }
    if (!s || !s.isScrapy || s.parsedLines >= task.log_lines) return false;
    const lines = await logLinesAfter(trx, taskId, s.parsedLines, CHUNK_LINES);
    const samples = parseScrapyLines(s.state, lines).slice(0, Math.max(0, MAX_SAMPLES - s.samples));
    s.parsedLines += lines.length;
    await saveProgress(trx, s, samples);
    return lines.length === CHUNK_LINES && s.parsedLines < task.log_lines;
  });
}

/**
 * Keeps every task's stats caught up with its stored log: one pass per task at a time, and a pass asked for while
 * one runs is run after it, so lines stored meanwhile are not left unread.
 */
export class ScrapyStatsReader {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  constructor(private readonly ctx: AppContext) {}

  /** Reads the task's unread lines; resolves when they are read. */
  catchUp(taskId: string): Promise<void> {
    const current = this.running.get(taskId);
    if (current) {
      this.again.add(taskId);
      return current;
    }
    const pass = this.pass(taskId).finally(() => {
      this.running.delete(taskId);
      if (this.again.delete(taskId)) void this.catchUp(taskId);
    });
    this.running.set(taskId, pass);
    return pass;
  }

  private async pass(taskId: string): Promise<void> {
    try {
      while (await parseChunk(this.ctx, taskId));
    } catch (err) {
      // The stats are derived from the stored log: the next line or the next read tries again.
      this.ctx.log.warn({ err: (err as Error).message, taskId }, 'scrapy stats: reading the log failed');
    }
  }
}

function finalOf(state: ScrapyParseState): ScrapyFinalStats | null {
  const d = state.dump;
  if (!Object.keys(d).length || state.inDump) return null;
  const num = (k: string) => (typeof d[k] === 'number' ? (d[k] as number) : null);
  return {
    finish_reason: typeof d.finish_reason === 'string' ? d.finish_reason : null,
    elapsed_time_seconds: num('elapsed_time_seconds'),
    memusage_max: num('memusage/max'),
    item_scraped_count: num('item_scraped_count'),
    response_received_count: num('response_received_count'),
    entries: d,
  };
}

/** The `item_scraped_count` of the task's closing stats as read so far; null before the dump is read or without one. */
export async function scrapedItemCount(ctx: AppContext, taskId: string): Promise<number | null> {
  const s = await readStats(ctx.store.db, taskId);
  return s?.isScrapy ? (finalOf(s.state)?.item_scraped_count ?? null) : null;
}

export async function taskScrapyStats(
  ctx: AppContext,
  reader: ScrapyStatsReader,
  taskId: string,
): Promise<TaskScrapyStats> {
  await reader.catchUp(taskId);
  const s = await readStats(ctx.store.db, taskId);
  const state = s?.state ?? emptyParseState();
  return {
    task_id: taskId,
    is_scrapy: s?.isScrapy ?? false,
    parsed_lines: s?.parsedLines ?? 0,
    pages: state.pages,
    items: state.items,
    status_counts: state.statusCounts,
    level_counts: state.levelCounts,
    samples: s?.isScrapy ? await readSamples(ctx.store.db, taskId) : [],
    final: finalOf(state),
  };
}

export async function spiderScrapyRuns(ctx: AppContext, spiderId: string, limit: number): Promise<SpiderScrapyRun[]> {
  const rows = await latestRunsOfSpider(ctx.store.db, spiderId, limit);
  return rows.map((r) => {
    const state = r.state ? (JSON.parse(r.state) as ScrapyParseState) : emptyParseState();
    const final = finalOf(state);
    return {
      task_id: r.id,
      status: r.status,
      create_ts: iso(r.create_ts) ?? '',
      pages: state.pages,
      items: r.state ? state.items : r.result_count,
      errors: r.error_lines,
      finish_reason: final?.finish_reason ?? null,
      elapsed_time_seconds: final?.elapsed_time_seconds ?? null,
      memusage_max: final?.memusage_max ?? null,
    };
  });
}

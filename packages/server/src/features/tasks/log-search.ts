import type { AppContext } from '../../context.ts';
import type { PageWindow } from '../../store/page.ts';
import { prepareLogIndex } from './log-index-file.store.ts';
import { startLogIndexer } from './log-index.ts';
import { LogSearchPool } from './log-search.pool.ts';
import { chunkIndexExists } from './log-chunks.store.ts';
import { startLogChunkIndexer } from './log-chunks.ts';
import { searchPostgresLog } from './log-search-pg.store.ts';
import type { LogSearchAnswer } from './log-search.store.ts';

/** Keyword search over one task's log, with a time budget per search. */
export interface LogSearch {
  search(task: { id: string; log_lines: number }, keyword: string, page: PageWindow): Promise<LogSearchAnswer>;
  /** Told when someone opens a task's log: a search may follow, so the search worker is started now. */
  warm(): void;
}

/**
 * The master's log search. On SQLite searches run in worker threads with their own read-only connections, through
 * the trigram index (a file of its own beside the store's) as far as the background indexer has reached and by
 * reading the lines after that. On PostgreSQL the queries run in the database server under a statement timeout,
 * through the chunk index of long logs (filled by a background indexer too) where it helps. Either way a search
 * stops at the configured budget and answers the page and count it has, marked partial.
 */
export function createLogSearch(ctx: AppContext): LogSearch {
  const budgetMs = ctx.config.logSearchBudgetMs;
  const jobOf = (task: { id: string; log_lines: number }, keyword: string, page: PageWindow) => ({
    taskId: task.id,
    keyword,
    lastLine: task.log_lines,
    offset: page.offset,
    limit: page.limit,
    budgetMs,
  });
  const { store } = ctx;
  if (store.engine === 'postgres') {
    startLogChunkIndexer(ctx);
    let chunks: boolean | undefined;
    const search: LogSearch['search'] = async (task, keyword, page) => {
      chunks ??= await chunkIndexExists(store.db);
      return searchPostgresLog(store.db, jobOf(task, keyword, page), chunks);
    };
    return { search, warm: () => {} };
  }
  // Search workers attach the index file read-only: it exists before the first of them starts.
  prepareLogIndex(store.location);
  startLogIndexer(ctx);
  const pool = new LogSearchPool(store.location, ctx.config.logSearchWorkers);
  ctx.onClose(() => pool.close());
  return { search: (task, keyword, page) => pool.search(jobOf(task, keyword, page)), warm: () => pool.warm() };
}

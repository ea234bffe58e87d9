import type { Kysely } from 'kysely';
import {
  SPIDERFILE_NAME,
  dumpSpiderfile,
  formatProblems,
  parseSpiderfile,
  validateSpiderfile,
  type Spiderfile,
  type SpiderfileProblem,
} from '@crawldeck/shared';
import { ConfigCrawler, extractFields, type CrawlStats } from '@crawldeck/node/config-spider';
import type { DB } from '../../store/schema.ts';
import { HttpError, badRequest } from '../../http/errors.ts';
import { readFile, writeFile } from '../spiders/files.store.ts';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { PREVIEW_RESPONSE_BYTES, PREVIEW_TOTAL_BYTES, PreviewSession, type SessionBudget } from './preview-session.ts';
import { saveSpiderConfig } from './config-spider.store.ts';
import type { MasterConfig } from '../../config.ts';
import type { SpiderRow } from '../spiders/spiders.store.ts';

export const invalidSpiderfile = (problems: SpiderfileProblem[]) =>
  badRequest(`invalid Spiderfile: ${formatProblems(problems)}`);

/** The spider's Spiderfile (from its files; else from its config column); 400 when missing or invalid. */
export async function loadSpiderfile(db: Kysely<DB>, row: SpiderRow): Promise<Spiderfile> {
  const content = await readFile(db, row.id, SPIDERFILE_NAME);
  if (content) {
    const parsed = parseSpiderfile(content.toString('utf8'));
    if (!parsed.ok) throw invalidSpiderfile(parsed.problems);
    return parsed.spiderfile;
  }
  let config: unknown = {};
  try {
    config = JSON.parse(row.config || '{}');
  } catch {
    /* fall through */
  }
  const parsed = validateSpiderfile(config);
  if (!parsed.ok) throw badRequest('this spider has no Spiderfile; create one in the Config tab');
  return parsed.spiderfile;
}

/** Validates a Spiderfile object and stores it as text plus the config column. */
export async function saveSpiderfile(
  db: Kysely<DB>,
  row: SpiderRow,
  sf: Spiderfile,
  text?: string,
): Promise<{ spiderfile: Spiderfile; content: string }> {
  const content = text ?? dumpSpiderfile(sf);
  await writeFile(db, row.id, SPIDERFILE_NAME, Buffer.from(content, 'utf8'));
  await saveSpiderConfig(db, row.id, JSON.stringify(sf));
  return { spiderfile: sf, content };
}

export type PreviewBudget = SessionBudget & { requests: number };

/** What a preview crawl or a field suggestion may spend: the configured time and requests, fixed byte caps. */
export const previewBudget = (
  config: Pick<MasterConfig, 'previewTimeoutMs' | 'previewMaxRequests'>,
): PreviewBudget => ({
  timeMs: config.previewTimeoutMs,
  requests: config.previewMaxRequests,
  responseBytes: PREVIEW_RESPONSE_BYTES,
  totalBytes: PREVIEW_TOTAL_BYTES,
});

/** First rows a run would extract: the same engine and order, stopped after `items` rows or the budget. */
export async function preview(
  sf: Spiderfile,
  items: number,
  policy: AddressPolicy,
  budget: PreviewBudget,
): Promise<{ rows: Record<string, string>[]; stats: CrawlStats; log: string[] }> {
  const rows: Record<string, string>[] = [];
  const log: string[] = [];
  const session = new PreviewSession(policy, budget);
  const crawler = new ConfigCrawler(
    sf,
    {
      maxItems: items,
      maxRequests: budget.requests,
      deadline: session.deadline,
      signal: session.signal,
      onItem: (r) => void rows.push(r),
      log: (l) => void (log.length < 200 && log.push(l)),
    },
    session.fetcher,
  );
  try {
    const stats = await crawler.run();
    if (session.stopReason) {
      log.push(`preview stopped: ${session.stopReason}`);
      if (stats.stoppedBy === 'aborted' && Date.now() >= session.deadline) stats.stoppedBy = 'deadline';
    }
    // Nothing extracted because the master refused or gave up on a page: say why instead of an empty table.
    if (!rows.length && session.problem) throw new HttpError(422, session.problem);
    return { rows, stats, log };
  } finally {
    await session.close();
  }
}

export async function suggestFields(
  sf: Spiderfile,
  url: string | undefined,
  policy: AddressPolicy,
  budget: PreviewBudget,
) {
  const session = new PreviewSession(policy, budget);
  const crawler = new ConfigCrawler(
    sf,
    { onItem: () => undefined, maxRequests: 3, deadline: session.deadline, signal: session.signal },
    session.fetcher,
  );
  const target = url || sf.start_url;
  try {
    const page = await crawler.page(target).catch(() => null);
    if (!page) {
      if (session.problem) throw new HttpError(422, session.problem);
      throw new HttpError(
        422,
        crawler.stats.skippedByRobots
          ? `robots.txt disallows ${target} (set settings.ROBOTSTXT_OBEY: false to ignore it)`
          : `could not load ${target}`,
      );
    }
    const found = extractFields(page);
    if (!found) throw new HttpError(422, 'no repeated list structure was found on the page');
    return found;
  } finally {
    await session.close();
  }
}

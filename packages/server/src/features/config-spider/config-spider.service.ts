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
import { ConfigCrawler, type CrawlStats } from '@crawldeck/node/config-spider/engine.ts';
import { extractFields } from '@crawldeck/node/config-spider/extract.ts';
import type { DB } from '../../store/schema.ts';
import { HttpError, badRequest } from '../../http/errors.ts';
import { readFile, writeFile } from '../spiders/files.store.ts';
import type { SpiderRow } from '../spiders/spiders.store.ts';

export const invalidSpiderfile = (problems: SpiderfileProblem[]) => badRequest(`invalid Spiderfile: ${formatProblems(problems)}`);

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
export async function saveSpiderfile(db: Kysely<DB>, row: SpiderRow, sf: Spiderfile, text?: string): Promise<{ spiderfile: Spiderfile; content: string }> {
  const content = text ?? dumpSpiderfile(sf);
  await writeFile(db, row.id, SPIDERFILE_NAME, Buffer.from(content, 'utf8'));
  await db.updateTable('spiders').set({ config: JSON.stringify(sf), update_ts: Date.now() }).where('id', '=', row.id).execute();
  return { spiderfile: sf, content };
}

export const previewBudget = () => ({
  timeMs: Number(process.env.CRAWLDECK_PREVIEW_TIMEOUT_MS) || 20_000,
  requests: Number(process.env.CRAWLDECK_PREVIEW_MAX_REQUESTS) || 40,
});

/** First rows a run would extract: the same engine and order, stopped after `items` rows or the budget. */
export async function preview(sf: Spiderfile, items: number): Promise<{ rows: Record<string, string>[]; stats: CrawlStats; log: string[] }> {
  const rows: Record<string, string>[] = [];
  const log: string[] = [];
  const budget = previewBudget();
  const crawler = new ConfigCrawler(sf, {
    maxItems: items,
    maxRequests: budget.requests,
    deadline: Date.now() + budget.timeMs,
    onItem: (r) => void rows.push(r),
    log: (l) => void (log.length < 200 && log.push(l)),
  });
  const stats = await crawler.run();
  return { rows, stats, log };
}

export async function suggestFields(sf: Spiderfile, url?: string) {
  const crawler = new ConfigCrawler(sf, { onItem: () => undefined, maxRequests: 3, deadline: Date.now() + previewBudget().timeMs });
  const target = url || sf.start_url;
  const page = await crawler.page(target).catch(() => null);
  if (!page) {
    throw new HttpError(422, crawler.stats.skippedByRobots ? `robots.txt disallows ${target} (set settings.ROBOTSTXT_OBEY: false to ignore it)` : `could not load ${target}`);
  }
  const found = extractFields(page);
  if (!found) throw new HttpError(422, 'no repeated list structure was found on the page');
  return found;
}

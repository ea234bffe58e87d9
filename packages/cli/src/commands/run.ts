import { TIMEOUT_MAX_SECONDS, type NodeInfo, type Spider } from '@crawldeck/shared';
import type { ApiClient } from '../api-client.ts';
import { printJson, type Output } from '../output.ts';
import { resolveSpider } from './spiders.ts';
import { followLog, statusLine } from './logs.ts';

export interface RunOptions {
  arg: string[];
  node: string[];
  allNodes?: boolean;
  crawl?: string;
  param?: string;
  follow?: boolean;
  priority?: string;
  timeout?: string;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The Scrapy spider to crawl when the command is a bare `scrapy crawl`: --crawl, else the project's only one. */
async function scrapySpiderName(api: ApiClient, spider: Spider, given?: string): Promise<string | undefined> {
  if (!spider.is_scrapy || !/^\s*scrapy\s+crawl\s*$/.test(spider.cmd)) return undefined;
  if (given) return given;
  const names = (await api.call<string[]>('GET', `/spiders/${spider._id}/scrapy/spiders`)).data;
  if (names.length === 1) return names[0];
  throw new Error(
    names.length
      ? `the project has several Scrapy spiders; choose one with --crawl (${names.join(', ')})`
      : 'the Scrapy project lists no spider',
  );
}

async function nodeIds(api: ApiClient, refs: string[]): Promise<string[]> {
  const nodes = (await api.call<NodeInfo[]>('GET', '/nodes')).data;
  return refs.map((ref) => {
    const n = nodes.find((x) => x._id === ref || x.name === ref);
    if (!n) throw new Error(`no node "${ref}" (nodes: ${nodes.map((x) => x.name).join(', ')})`);
    return n._id;
  });
}

/** Builds the task's parameters: the Scrapy spider name, `-a k=v` arguments, then any raw --param text. */
function taskParam(scrapyName: string | undefined, args: string[], raw?: string): string {
  for (const a of args) if (!/^[^=\s]+=/.test(a)) throw new Error(`-a takes KEY=VALUE, got "${a}"`);
  return [scrapyName, ...args.map((a) => `-a ${shellQuote(a)}`), raw?.trim()].filter(Boolean).join(' ');
}

/** --priority as the master takes it: a whole number from 1 (highest) to 5 (lowest); absent leaves the default. */
export function parsePriority(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  const n = /^\s*\d+\s*$/.test(given) ? Number(given) : NaN;
  if (!(n >= 1 && n <= 5))
    throw new Error(`--priority takes a whole number from 1 (highest) to 5 (lowest), got "${given}"`);
  return n;
}

/** --timeout as the master takes it: whole seconds, 0 for no limit; absent follows the spider's own. */
export function parseTimeout(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  const n = /^\s*\d+\s*$/.test(given) ? Number(given) : NaN;
  if (!(n >= 0 && n <= TIMEOUT_MAX_SECONDS))
    throw new Error(`--timeout takes whole seconds from 0 (no limit) to ${TIMEOUT_MAX_SECONDS}, got "${given}"`);
  return n;
}

export async function run(api: ApiClient, ref: string, opts: RunOptions, out: Output): Promise<number> {
  const spider = await resolveSpider(api, ref);
  const param = taskParam(await scrapySpiderName(api, spider, opts.crawl), opts.arg, opts.param);
  const priority = parsePriority(opts.priority);
  const timeout = parseTimeout(opts.timeout);
  const where = opts.node.length
    ? { run_type: 'selected-nodes', node_ids: await nodeIds(api, opts.node) }
    : { run_type: opts.allNodes ? 'all-nodes' : 'random' };
  const body = {
    spider_id: spider._id,
    ...where,
    param,
    ...(priority !== undefined ? { priority } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
  };
  const ids = (await api.call<string[]>('PUT', '/tasks', { body })).data;
  if (!opts.follow) {
    if (out.json) printJson({ spider_id: spider._id, task_ids: ids });
    else process.stdout.write(`Started ${ids.length === 1 ? 'task' : 'tasks'} ${ids.join(', ')} of ${spider.name}\n`);
    return 0;
  }
  if (!out.json)
    process.stderr.write(
      `Started task ${ids[0]} of ${spider.name}: ${[spider.cmd, param].filter(Boolean).join(' ')}\n`,
    );
  let code = 0;
  for (const id of ids) {
    const task = await followLog(api, id, out);
    if (out.json) printJson(task);
    else process.stderr.write(statusLine(task));
    if (task.status !== 'finished') code = 1;
  }
  return code;
}

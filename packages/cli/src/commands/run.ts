import { TIMEOUT_MAX_SECONDS, type NodeInfo, type Spider } from '@crawldeck/shared';
import type { ApiClient } from '../api-client.ts';
import { printJson, type Output } from '../output.ts';
import { resolveSpider } from './spiders.ts';
import { followLog, linePrinter, statusLine } from './logs.ts';

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
    const byId = nodes.find((x) => x._id === ref);
    if (byId) return byId._id;
    const named = nodes.filter((x) => x.name === ref);
    if (!named.length) throw new Error(`no node "${ref}" (nodes: ${nodes.map((x) => x.name).join(', ')})`);
    // Names are unique since nodes get a free one on joining; nodes that joined before may still share one.
    if (named.length > 1)
      throw new Error(`several nodes are named "${ref}": choose one by id (${named.map((x) => x._id).join(', ')})`);
    return named[0]._id;
  });
}

/** Builds the task's parameters: the Scrapy spider name, `-a k=v` arguments, then any raw --param text. */
function taskParam(scrapyName: string | undefined, args: string[], raw?: string): string {
  for (const a of args) if (!/^[^=\s]+=/.test(a)) throw new Error(`-a takes KEY=VALUE, got "${a}"`);
  return [scrapyName, ...args.map((a) => `-a ${shellQuote(a)}`), raw?.trim()].filter(Boolean).join(' ');
}

/** Follows every started task at once until each has ended; exit code 1 unless all finished. */
async function followTasks(api: ApiClient, spider: Spider, ids: string[], out: Output): Promise<number> {
  const print = linePrinter(out, ids.length > 1);
  const ended = await Promise.all(
    ids.map(async (id) => {
      const task = await followLog(api, id, print);
      if (!out.json) process.stderr.write(statusLine(task));
      return task;
    }),
  );
  const code = ended.every((t) => t.status === 'finished') ? 0 : 1;
  if (out.json)
    process.stdout.write(
      JSON.stringify({ type: 'summary', spider_id: spider._id, exit_code: code, tasks: ended }) + '\n',
    );
  return code;
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
  if (out.json) process.stdout.write(JSON.stringify({ type: 'started', spider_id: spider._id, task_ids: ids }) + '\n');
  else
    process.stderr.write(
      `Started ${ids.length === 1 ? 'task' : 'tasks'} ${ids.join(', ')} of ${spider.name}: ${[spider.cmd, param].filter(Boolean).join(' ')}\n`,
    );
  return followTasks(api, spider, ids, out);
}

import { PRIORITY_DEFAULT, SCRAPYD_ARGS_MAX } from '@crawldeck/shared';
import { badRequest } from '../../http/errors.ts';

/**
 * What a Scrapyd request carries: query string and form fields merged, each name with its values in order (Scrapyd
 * reads both the same way). A missing required one answers Scrapyd's own message.
 */
export type ScrapydParams = Record<string, string[]>;

export function param(p: ScrapydParams, name: string): string;
export function param(p: ScrapydParams, name: string, required: false): string | undefined;
export function param(p: ScrapydParams, name: string, required = true): string | undefined {
  const v = p[name]?.[0];
  if (v === undefined && required) throw badRequest(`'${name}' parameter is required`);
  return v;
}

export function mergeParams(...sources: unknown[]): ScrapydParams {
  const out: ScrapydParams = {};
  for (const src of sources) {
    if (!src || typeof src !== 'object') continue;
    for (const [k, v] of Object.entries(src as Record<string, unknown>)) {
      const list = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
      if (list.length) (out[k] ??= []).push(...list);
    }
  }
  return out;
}

/** A form body (`application/x-www-form-urlencoded`) as names with their values in order. */
export function parseForm(body: string): ScrapydParams {
  const out: ScrapydParams = {};
  for (const [k, v] of new URLSearchParams(body)) (out[k] ??= []).push(v);
  return out;
}

// Names that become words of the task's command line: plain enough to read in a log and to quote safely.
const ARG_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;
const JOB_ID = /^[A-Za-z0-9_.-]{1,200}$/;

/** Parameters schedule.json reads itself; every other one is a spider argument. */
const SCHEDULE_OWN = new Set(['project', 'spider', '_version', 'jobid', 'priority', 'setting']);

export interface ScheduleRequest {
  project: string;
  spider: string;
  version: string | undefined;
  jobId: string | undefined;
  priority: number;
  args: Record<string, string>;
  settings: Record<string, string>;
}

/**
 * Scrapyd's priority is any number, higher runs first, 0 by default; Crawldeck's queue has 1 (first) to 5 (last),
 * 3 by default. Each whole step away from 0 moves one place, up to the ends.
 */
export function crawldeckPriority(scrapyd: number): number {
  return Math.min(5, Math.max(1, PRIORITY_DEFAULT - Math.trunc(scrapyd)));
}

export function scheduleRequest(p: ScrapydParams): ScheduleRequest {
  const project = param(p, 'project');
  const spider = param(p, 'spider');
  const jobId = param(p, 'jobid', false);
  if (jobId !== undefined && !JOB_ID.test(jobId))
    throw badRequest(`jobid '${jobId}' is not allowed: use letters, digits, '_', '.' and '-' (at most 200)`);
  const priorityText = param(p, 'priority', false);
  const priorityNumber = priorityText === undefined ? 0 : Number(priorityText);
  if (!Number.isFinite(priorityNumber)) throw badRequest(`priority '${priorityText}' is not a number`);
  const settings: Record<string, string> = {};
  for (const s of p.setting ?? []) {
    const eq = s.indexOf('=');
    const key = eq < 0 ? s : s.slice(0, eq);
    if (eq < 0 || !ARG_NAME.test(key)) throw badRequest(`setting '${s}' is not of the form NAME=VALUE`);
    settings[key] = s.slice(eq + 1);
  }
  const args: Record<string, string> = {};
  for (const [name, values] of Object.entries(p)) {
    if (SCHEDULE_OWN.has(name)) continue;
    if (!ARG_NAME.test(name) || name === '_job')
      throw badRequest(`spider argument '${name}' is not allowed: use letters, digits, '_', '.' and '-'`);
    // As in Scrapyd, a spider argument given several times counts once, with its first value.
    args[name] = values[0];
  }
  if (Object.keys(args).length + Object.keys(settings).length > SCRAPYD_ARGS_MAX)
    throw badRequest(`at most ${SCRAPYD_ARGS_MAX} spider arguments and settings`);
  return {
    project,
    spider,
    version: param(p, '_version', false),
    jobId,
    priority: crawldeckPriority(priorityNumber),
    args,
    settings,
  };
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** The words after `scrapy crawl`: the spider, its arguments (the job id as `_job`, as Scrapyd passes it), settings. */
export function crawlParam(
  spider: string,
  jobId: string,
  args: Record<string, string>,
  settings: Record<string, string>,
) {
  const words = [quote(spider)];
  for (const [k, v] of Object.entries({ _job: jobId, ...args })) words.push('-a', quote(`${k}=${v}`));
  for (const [k, v] of Object.entries(settings)) words.push('-s', quote(`${k}=${v}`));
  return words.join(' ');
}

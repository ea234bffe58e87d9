import { createHash, randomUUID } from 'node:crypto';
import { SCRAPYD_FINISHED_KEPT, SCRAPYD_NAME_MAX, type ScrapydJob } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { AuthUser } from '../../http/auth.ts';
import { HttpError, badRequest } from '../../http/errors.ts';
import { spiderFor, spiderReadFilter, taskReadFilter, assertTaskChange } from '../../policies/index.ts';
import { createSpider, deleteSpider } from '../spiders/spiders.service.ts';
import { listFiles, replaceFiles } from '../spiders/files.store.ts';
import { isUniqueViolation } from '../users/users.store.ts';
import { pythonSettingsOf, scrapyCall } from '../scrapy/scrapy.service.ts';
import { createTasks } from '../tasks/tasks.service.ts';
import { EggError, eggFiles } from './egg.ts';
import { crawlParam, param, scheduleRequest, type ScrapydParams } from './scrapyd-params.ts';
import {
  allJobs,
  deleteVersion,
  findJobTask,
  findProject,
  insertJob,
  jobCounts,
  jobIdTaken,
  ownProject,
  projectJobs,
  projectNames,
  putVersion,
  versionEgg,
  versionNames,
  type JobTaskRow,
  type ProjectRow,
} from './scrapyd.store.ts';

/**
 * The Scrapyd web service on Crawldeck's own parts: a project is a Scrapy spider found by name among those the
 * caller may read, a version is an egg whose files become the spider's files, a job is an ordinary task running
 * `scrapy crawl <spider> -a … -s …`. Refusals are 4xx HttpErrors with Scrapyd's own wording; the routes turn
 * them into Scrapyd's error answer.
 */

const PROJECT_NAME_MAX = 100;
const projectNotFound = (name: string) => badRequest(`project '${name}' not found`);
const versionNotFound = (name: string) => badRequest(`version '${name}' not found`);

async function projectOf(ctx: AppContext, user: AuthUser, name: string): Promise<ProjectRow> {
  const found = await findProject(ctx.store.db, spiderReadFilter(user), user.id, name);
  if (!found) throw projectNotFound(name);
  return found;
}

/** The project's spider for a change or a run: the spider policy decides, a refusal reads as Scrapyd's message. */
async function projectFor(ctx: AppContext, user: AuthUser, name: string, access: 'write' | 'run') {
  const p = await projectOf(ctx, user, name);
  try {
    await spiderFor(ctx.store.db, user, p.id, access);
  } catch (err) {
    if (err instanceof HttpError && err.statusCode === 403)
      throw new HttpError(403, `project '${name}' belongs to another user`);
    throw err;
  }
  return p;
}

export async function daemonStatus(ctx: AppContext, user: AuthUser) {
  return jobCounts(ctx.store.db, taskReadFilter(user));
}

export async function listProjects(ctx: AppContext, user: AuthUser) {
  return { projects: await projectNames(ctx.store.db, spiderReadFilter(user)) };
}

export async function listVersions(ctx: AppContext, user: AuthUser, p: ScrapydParams) {
  const found = await findProject(ctx.store.db, spiderReadFilter(user), user.id, param(p, 'project'));
  // Scrapyd answers an empty list for a project it does not know.
  return { versions: found ? await versionNames(ctx.store.db, found.id) : [] };
}

/** The Scrapy spiders of the project's current files; `_version` may name only the newest version. */
export async function listSpiders(ctx: AppContext, user: AuthUser, p: ScrapydParams) {
  const project = await projectOf(ctx, user, param(p, 'project'));
  await checkVersion(ctx, project.id, param(p, '_version', false));
  return { spiders: await scrapySpiders(ctx, project.id) };
}

/**
 * Spider lists by the content of the files they were read from (paths and content hashes): listing runs Python on
 * a checkout, and Scrapyd tools ask often (every schedule, listspiders polls). Same files, same spiders.
 */
const spiderLists = new Map<string, string[]>();
const SPIDER_LISTS_KEPT = 500;

async function scrapySpiders(ctx: AppContext, spiderId: string): Promise<string[]> {
  const files = await listFiles(ctx.store.db, spiderId);
  const key = createHash('sha256')
    .update(files.map((f) => `${f.path}\0${f.hash ?? 'dir'}`).join('\n'))
    .digest('hex');
  const known = spiderLists.get(key);
  if (known) return known;
  // In `scrapy list`'s order (ascending), which Scrapyd answers; the console's list is descending.
  const list = (await scrapyCall<string[]>(ctx.store.db, pythonSettingsOf(ctx.config), spiderId, 'list')).sort();
  spiderLists.set(key, list);
  if (spiderLists.size > SPIDER_LISTS_KEPT) spiderLists.delete(spiderLists.keys().next().value!);
  return list;
}

/**
 * A version named in a request: it must exist, and be the newest, since a spider has one set of files (the newest
 * version's) and its tasks run those.
 */
async function checkVersion(ctx: AppContext, spiderId: string, version: string | undefined): Promise<void> {
  if (version === undefined) return;
  const versions = await versionNames(ctx.store.db, spiderId);
  if (!versions.includes(version)) throw versionNotFound(version);
  if (versions[versions.length - 1] !== version)
    throw badRequest(`version '${version}' is not the newest: only the newest version of a project can run`);
}

export async function addVersion(
  ctx: AppContext,
  user: AuthUser,
  fields: ScrapydParams,
  egg: Buffer | undefined,
): Promise<{ project: string; version: string; spiders: number }> {
  const name = param(fields, 'project');
  const version = param(fields, 'version');
  // A project becomes a spider: its name obeys a spider name's length (and the spider form's other rules).
  if (name.length > PROJECT_NAME_MAX) throw badRequest(`project name is longer than ${PROJECT_NAME_MAX} characters`);
  if (!version.trim() || version.length > SCRAPYD_NAME_MAX)
    throw badRequest(`version must be 1 to ${SCRAPYD_NAME_MAX} characters`);
  if (!egg) throw badRequest("'egg' parameter is required");
  const files = await eggOrRefusal(ctx, egg);
  const db = ctx.store.db;
  // An upload goes to the caller's own project of that name, never to another user's they happen to see.
  let spiderId = (await ownProject(db, user.id, name))?.id;
  if (spiderId) {
    await spiderFor(db, user, spiderId, 'write');
    await replaceFiles(db, spiderId, files.files, { dirs: files.dirs });
  } else {
    const created = await createSpider(
      ctx,
      user,
      { name, cmd: 'scrapy crawl', is_scrapy: true },
      {
        ...files,
        strippedFolder: null,
      },
    );
    spiderId = created.id;
  }
  await putVersion(db, spiderId, version, egg);
  const spiders = await scrapySpiders(ctx, spiderId);
  return { project: name, version, spiders: spiders.length };
}

async function eggOrRefusal(ctx: AppContext, egg: Buffer) {
  if (egg.length < 4 || egg.readUInt32LE(0) !== 0x04034b50)
    throw badRequest('egg is not a ZIP file (if using curl, use egg=@path not egg=path)');
  try {
    return await eggFiles(egg, { maxEntries: ctx.config.zipMaxEntries, maxBytes: ctx.config.zipMaxBytes });
  } catch (err) {
    if (err instanceof EggError) throw badRequest(err.message);
    throw err;
  }
}

export async function schedule(ctx: AppContext, user: AuthUser, p: ScrapydParams): Promise<{ jobid: string }> {
  const req = scheduleRequest(p);
  const db = ctx.store.db;
  const project = await projectFor(ctx, user, req.project, 'run');
  await checkVersion(ctx, project.id, req.version);
  if (!(await scrapySpiders(ctx, project.id)).includes(req.spider))
    throw badRequest(`spider '${req.spider}' not found`);
  const jobId = req.jobId ?? randomUUID().replace(/-/g, '');
  const taken = () => badRequest(`job '${jobId}' already exists in project '${req.project}'`);
  if (await jobIdTaken(db, project.id, jobId)) throw taken();
  try {
    await createTasks(
      ctx,
      {
        spiderId: project.id,
        cmd: 'scrapy crawl',
        param: crawlParam(req.spider, jobId, req.args, req.settings),
        priority: req.priority,
        ownerId: user.id,
      },
      // The job row is written with the task, so a job id always names a task and a task at most one job.
      (trx, [taskId]) =>
        insertJob(trx, {
          task_id: taskId,
          spider_id: project.id,
          job_id: jobId,
          scrapy_spider: req.spider,
          version: req.version ?? null,
          args: JSON.stringify(req.args),
          settings: JSON.stringify(req.settings),
        }),
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
  return { jobid: jobId };
}

/** Scrapyd's three states: a task that ended in any way is finished. */
function stateOf(status: string): 'pending' | 'running' | 'finished' {
  return status === 'pending' || status === 'running' ? status : 'finished';
}

export async function jobStatus(ctx: AppContext, user: AuthUser, p: ScrapydParams) {
  const job = param(p, 'job');
  const projectName = param(p, 'project', false);
  const project = projectName === undefined ? undefined : await projectOf(ctx, user, projectName);
  const t = await findJobTask(ctx.store.db, taskReadFilter(user), job, project?.id);
  return { currstate: t ? stateOf(t.status) : null };
}

export async function cancel(ctx: AppContext, user: AuthUser, p: ScrapydParams) {
  // Crawldeck's node stops a cancelled task's processes itself; Scrapyd's choice of signal has no counterpart.
  if (p.signal) throw badRequest("'signal' is not supported: Crawldeck stops a job's processes its own way");
  const project = await projectOf(ctx, user, param(p, 'project'));
  const job = param(p, 'job');
  const t = await findJobTask(ctx.store.db, taskReadFilter(user), job, project.id);
  if (!t) return { prevstate: null };
  const state = stateOf(t.status);
  if (state === 'finished') return { prevstate: null };
  assertTaskChange(user, t);
  return { prevstate: (await ctx.execution.cancel(t.id)) ? state : null };
}

export async function delVersion(ctx: AppContext, user: AuthUser, p: ScrapydParams) {
  const name = param(p, 'project');
  const version = param(p, 'version');
  const project = await projectFor(ctx, user, name, 'write');
  const db = ctx.store.db;
  const before = await versionNames(db, project.id);
  if (!before.includes(version)) throw versionNotFound(version);
  const wasNewest = before[before.length - 1] === version;
  const rest = before.filter((v) => v !== version);
  // As in Scrapyd, a project whose last version goes is deleted with it.
  if (!rest.length) return deleteSpider(ctx, project.id);
  await deleteVersion(db, project.id, version);
  if (!wasNewest) return;
  // The version before becomes the current one again: its files are the spider's files.
  const egg = await versionEgg(db, project.id, rest[rest.length - 1]);
  if (!egg) return;
  const files = await eggOrRefusal(ctx, egg);
  await replaceFiles(db, project.id, files.files, { dirs: files.dirs });
}

export async function delProject(ctx: AppContext, user: AuthUser, p: ScrapydParams) {
  const project = await projectFor(ctx, user, param(p, 'project'), 'write');
  await deleteSpider(ctx, project.id);
}

// ---- jobs as Scrapyd lists them ----

/** Scrapyd prints times as Python prints a datetime: `2026-12-07 19:09:03.123000` (here in UTC). */
export function scrapydTime(ms: number | null): string | undefined {
  if (ms == null) return undefined;
  const iso = new Date(ms).toISOString(); // 2026-12-07T19:09:03.123Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${iso.slice(20, 23)}000`;
}

/** The Scrapy spider of a task started elsewhere: the word after `scrapy crawl` in its command. */
function spiderOfCommand(t: JobTaskRow): string {
  const m = /\bscrapy\s+crawl\s+'?([\w.-]+)/.exec(`${t.cmd} ${t.param}`);
  return m?.[1] ?? '';
}

export interface JobUrls {
  /** Where this mount serves logs and items (`/scrapyd` on the main port, `` on its own port). */
  prefix: string;
}

export function presentJob(t: JobTaskRow, project: string, urls: JobUrls): ScrapydJob {
  const id = t.job_id ?? t.id;
  const spider = t.scrapy_spider ?? spiderOfCommand(t);
  const base = { id, project, spider };
  const state = stateOf(t.status);
  const path = `${encodeURIComponent(project)}/${encodeURIComponent(spider || '-')}/${encodeURIComponent(id)}`;
  const log_url = `${urls.prefix}/logs/${path}.log`;
  const items_url = `${urls.prefix}/items/${path}.jl`;
  if (state === 'pending')
    return {
      ...base,
      version: t.version,
      settings: JSON.parse(t.settings ?? '{}') as Record<string, string>,
      args: JSON.parse(t.args ?? '{}') as Record<string, string>,
    };
  const start_time = scrapydTime(t.start_ts ?? t.create_ts);
  if (state === 'running') return { ...base, pid: t.pid, start_time, log_url, items_url };
  return { ...base, start_time, end_time: scrapydTime(t.finish_ts ?? t.start_ts ?? t.create_ts), log_url, items_url };
}

export async function listJobs(ctx: AppContext, user: AuthUser, p: ScrapydParams, urls: JobUrls) {
  const name = param(p, 'project', false);
  const rows =
    name === undefined
      ? await allJobs(ctx.store.db, taskReadFilter(user), SCRAPYD_FINISHED_KEPT)
      : await projectJobs(
          ctx.store.db,
          taskReadFilter(user),
          (await projectOf(ctx, user, name)).id,
          SCRAPYD_FINISHED_KEPT,
        );
  const show = (t: JobTaskRow & { project?: string }) => presentJob(t, name ?? t.project ?? '', urls);
  return {
    pending: rows.live.filter((t) => t.status === 'pending').map(show),
    running: rows.live.filter((t) => t.status === 'running').map(show),
    finished: rows.finished.map(show),
  };
}

/** The task behind `/logs/<project>/<spider>/<job>.log` (and `/items/…`), or a 404 when the caller may not read it. */
export async function jobTask(ctx: AppContext, user: AuthUser, projectName: string, job: string): Promise<JobTaskRow> {
  const project = await projectOf(ctx, user, projectName);
  const t = await findJobTask(ctx.store.db, taskReadFilter(user), job, project.id);
  if (!t) throw new HttpError(404, `job '${job}' not found`);
  return t;
}

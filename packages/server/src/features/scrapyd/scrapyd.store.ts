import { sql, type Kysely } from 'kysely';
import { FINAL_TASK_STATUSES } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import type { Filter } from '../../policies/types.ts';

/**
 * The Scrapyd-compatible web service's rows: a Scrapyd project is a Scrapy spider (is_scrapy) found by name, its
 * versions are the eggs uploaded to it, its jobs are its tasks (with the Scrapyd job behind those it started).
 * Which spiders and tasks a caller sees comes from the policies' filters, passed in.
 */

const PROJECT_NAMES_MAX = 10_000;

export interface ProjectRow {
  id: string;
  name: string;
  owner_id: string;
}

export async function projectNames(db: Kysely<DB>, readable: Filter<'spiders'>): Promise<string[]> {
  const rows = await db
    .selectFrom('spiders')
    .select('name')
    .distinct()
    .where('is_scrapy', '=', 1)
    .where(readable)
    .orderBy('name')
    .limit(PROJECT_NAMES_MAX)
    .execute();
  return rows.map((r) => r.name);
}

/** The caller's readable Scrapy spider of that name: their own first, then the oldest (names are unique per owner). */
export async function findProject(
  db: Kysely<DB>,
  readable: Filter<'spiders'>,
  callerId: string,
  name: string,
): Promise<ProjectRow | undefined> {
  return db
    .selectFrom('spiders')
    .select(['id', 'name', 'owner_id'])
    .where('name', '=', name)
    .where('is_scrapy', '=', 1)
    .where(readable)
    .orderBy(sql`case when owner_id = ${callerId} then 0 else 1 end`)
    .orderBy('create_ts')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** The Scrapy spider of that name the user owns: where the user's uploads go (names are unique per owner). */
export function ownProject(db: Kysely<DB>, ownerId: string, name: string): Promise<ProjectRow | undefined> {
  return db
    .selectFrom('spiders')
    .select(['id', 'name', 'owner_id'])
    .where('owner_id', '=', ownerId)
    .where('name', '=', name)
    .where('is_scrapy', '=', 1)
    .executeTakeFirst();
}

// ---- versions ----

export async function versionNames(db: Kysely<DB>, spiderId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('scrapyd_versions')
    .select('version')
    .where('spider_id', '=', spiderId)
    .orderBy('upload_ts')
    .orderBy('version')
    .execute();
  return rows.map((r) => r.version);
}

export async function versionEgg(db: Kysely<DB>, spiderId: string, version: string): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('scrapyd_versions')
    .select('egg')
    .where('spider_id', '=', spiderId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row?.egg;
}

/** Stores an egg as the newest version; uploading a version name again replaces it and makes it the newest. */
export async function putVersion(db: Kysely<DB>, spiderId: string, version: string, egg: Buffer): Promise<void> {
  const last = await db
    .selectFrom('scrapyd_versions')
    .select((eb) => eb.fn.max('upload_ts').as('ts'))
    .where('spider_id', '=', spiderId)
    .executeTakeFirst();
  // Strictly after the previous newest, even within one millisecond.
  const ts = Math.max(Date.now(), Number(last?.ts ?? 0) + 1);
  await db
    .insertInto('scrapyd_versions')
    .values({ spider_id: spiderId, version, egg, upload_ts: ts })
    .onConflict((oc) => oc.columns(['spider_id', 'version']).doUpdateSet({ egg, upload_ts: ts }))
    .execute();
}

export async function deleteVersion(db: Kysely<DB>, spiderId: string, version: string): Promise<boolean> {
  const r = await db
    .deleteFrom('scrapyd_versions')
    .where('spider_id', '=', spiderId)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

// ---- jobs ----

export interface JobRecord {
  task_id: string;
  spider_id: string;
  job_id: string;
  scrapy_spider: string;
  version: string | null;
  args: string;
  settings: string;
}

export async function insertJob(db: Kysely<DB>, job: JobRecord): Promise<void> {
  await db.insertInto('scrapyd_jobs').values(job).execute();
}

export async function jobIdTaken(db: Kysely<DB>, spiderId: string, jobId: string): Promise<boolean> {
  const row = await db
    .selectFrom('scrapyd_jobs')
    .select('task_id')
    .where('spider_id', '=', spiderId)
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return !!row;
}

/** A task with what the Scrapyd service knows of it (null fields for a task started elsewhere). */
export interface JobTaskRow {
  id: string;
  spider_id: string;
  owner_id: string | null;
  status: string;
  cmd: string;
  param: string;
  pid: number | null;
  create_ts: number;
  start_ts: number | null;
  finish_ts: number | null;
  job_id: string | null;
  scrapy_spider: string | null;
  version: string | null;
  args: string | null;
  settings: string | null;
}

function jobTasks(db: Kysely<DB>, readable: Filter<'tasks'>) {
  return db
    .selectFrom('tasks')
    .leftJoin('scrapyd_jobs', 'scrapyd_jobs.task_id', 'tasks.id')
    .select([
      'tasks.id',
      'tasks.spider_id',
      'tasks.owner_id',
      'tasks.status',
      'tasks.cmd',
      'tasks.param',
      'tasks.pid',
      'tasks.create_ts',
      'tasks.start_ts',
      'tasks.finish_ts',
      'scrapyd_jobs.job_id',
      'scrapyd_jobs.scrapy_spider',
      'scrapyd_jobs.version',
      'scrapyd_jobs.args',
      'scrapyd_jobs.settings',
    ])
    .where(readable);
}

const LIVE_MAX = 1000;

/** A spider's pending and running tasks (oldest first) and its newest finished ones, as the caller may read them. */
export async function projectJobs(
  db: Kysely<DB>,
  readable: Filter<'tasks'>,
  spiderId: string,
  finishedMax: number,
): Promise<{ live: JobTaskRow[]; finished: JobTaskRow[] }> {
  const [live, finished] = await Promise.all([
    jobTasks(db, readable)
      .where('tasks.spider_id', '=', spiderId)
      .where('tasks.status', 'in', ['pending', 'running'])
      .orderBy('tasks.create_ts')
      .orderBy('tasks.id')
      .limit(LIVE_MAX)
      .execute(),
    jobTasks(db, readable)
      .where('tasks.spider_id', '=', spiderId)
      .where('tasks.status', 'in', [...FINAL_TASK_STATUSES])
      .orderBy('tasks.create_ts', 'desc')
      .orderBy('tasks.id', 'desc')
      .limit(finishedMax)
      .execute(),
  ]);
  return { live, finished: finished.reverse() };
}

/**
 * Every Scrapy spider's pending and running tasks and the newest finished ones, as the caller may read them, each
 * with its spider's name (listjobs without a project).
 */
export async function allJobs(
  db: Kysely<DB>,
  readable: Filter<'tasks'>,
  finishedMax: number,
): Promise<{ live: (JobTaskRow & { project: string })[]; finished: (JobTaskRow & { project: string })[] }> {
  const ofScrapy = () =>
    jobTasks(db, readable)
      .innerJoin('spiders', 'spiders.id', 'tasks.spider_id')
      .select('spiders.name as project')
      .where('spiders.is_scrapy', '=', 1);
  const [live, finished] = await Promise.all([
    ofScrapy()
      .where('tasks.status', 'in', ['pending', 'running'])
      .orderBy('tasks.create_ts')
      .orderBy('tasks.id')
      .limit(LIVE_MAX)
      .execute(),
    ofScrapy()
      .where('tasks.status', 'in', [...FINAL_TASK_STATUSES])
      .orderBy('tasks.create_ts', 'desc')
      .orderBy('tasks.id', 'desc')
      .limit(finishedMax)
      .execute(),
  ]);
  return { live, finished: finished.reverse() };
}

/**
 * The task behind a job id: a Scrapyd job id given at schedule time, or the task's own id (tasks started elsewhere
 * have no other). Limited to one spider when a project is named.
 */
export async function findJobTask(
  db: Kysely<DB>,
  readable: Filter<'tasks'>,
  jobId: string,
  spiderId: string | undefined,
): Promise<JobTaskRow | undefined> {
  let byJob = jobTasks(db, readable).where('scrapyd_jobs.job_id', '=', jobId);
  if (spiderId) byJob = byJob.where('scrapyd_jobs.spider_id', '=', spiderId);
  const found = await byJob.orderBy('tasks.create_ts', 'desc').limit(1).executeTakeFirst();
  if (found || !/^[0-9a-f]{24}$/.test(jobId)) return found;
  let byTask = jobTasks(db, readable).where('tasks.id', '=', jobId);
  if (spiderId) byTask = byTask.where('tasks.spider_id', '=', spiderId);
  return byTask.executeTakeFirst();
}

/** Pending and running tasks the caller may read, and finished tasks of Scrapyd jobs (daemonstatus). */
export async function jobCounts(
  db: Kysely<DB>,
  readable: Filter<'tasks'>,
): Promise<{ pending: number; running: number; finished: number }> {
  const [live, finished] = await Promise.all([
    db
      .selectFrom('tasks')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', 'in', ['pending', 'running'])
      .where(readable)
      .groupBy('status')
      .execute(),
    db
      .selectFrom('scrapyd_jobs')
      .innerJoin('tasks', 'tasks.id', 'scrapyd_jobs.task_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tasks.status', 'in', [...FINAL_TASK_STATUSES])
      .where(readable)
      .executeTakeFirstOrThrow(),
  ]);
  const of = (s: string) => Number(live.find((r) => r.status === s)?.n ?? 0);
  return { pending: of('pending'), running: of('running'), finished: Number(finished.n) };
}

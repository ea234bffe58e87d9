/** The only code of node environments that speaks SQL: jobs, node reports, languages, "all nodes" marks. */
import { sql, type Kysely, type Selectable } from 'kysely';
import { NODE_OFFLINE_PREFIX, type EnvJobQuery, type EnvLanguageBody, type NodeInventoryBody } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';

export type EnvJobRow = Selectable<DB['env_jobs']>;
export type InventoryRow = Selectable<DB['env_inventory']>;
export type NewEnvJob = Omit<EnvJobRow, 'status' | 'log' | 'error' | 'start_ts' | 'finish_ts' | 'deadline_ts'>;

/** A job's log is kept to this many characters; the rest of a chatty install is dropped, its end is kept. */
const MAX_LOG_CHARS = 512 * 1024;

/** Stores new jobs; each must be taken by its node within `ttlMs`. */
export async function insertJobs(db: Kysely<DB>, jobs: NewEnvJob[], ttlMs: number): Promise<void> {
  if (!jobs.length) return;
  const fresh = { status: 'pending', log: '', error: '', start_ts: null, finish_ts: null };
  await db
    .insertInto('env_jobs')
    .values(jobs.map((j) => ({ ...j, ...fresh, deadline_ts: j.create_ts + ttlMs })))
    .execute();
}

export function listJobs(db: Kysely<DB>, q: EnvJobQuery): Promise<EnvJobRow[]> {
  let query = db.selectFrom('env_jobs').selectAll();
  if (q.node_id) query = query.where('node_id', '=', q.node_id);
  if (q.target) query = query.where('target', '=', q.target);
  if (q.status) query = query.where('status', '=', q.status);
  return query
    .orderBy('create_ts', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit ?? 50)
    .execute();
}

export function getJob(db: Kysely<DB>, id: string): Promise<EnvJobRow | undefined> {
  return db.selectFrom('env_jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Jobs not finished yet (pending or running), of every node: they make the states "Installing". */
export function unfinishedJobs(db: Kysely<DB>): Promise<EnvJobRow[]> {
  return db.selectFrom('env_jobs').selectAll().where('status', 'in', ['pending', 'running']).execute();
}

/**
 * The node asks for work only when it runs no job, so a job still `running` on it was cut short by a restart of
 * the node: it is marked failed (a package manager stopped halfway needs a look, not a blind retry).
 */
export async function failInterruptedJobs(db: Kysely<DB>, nodeId: string): Promise<void> {
  await db
    .updateTable('env_jobs')
    .set({ status: 'failed', error: 'the node restarted while this job ran', finish_ts: Date.now() })
    .where('node_id', '=', nodeId)
    .where('status', '=', 'running')
    .execute();
}

/**
 * Takes the node's oldest pending job, to be reported on within `ttlMs`; the status condition makes the claim safe
 * when two claims race.
 */
export async function claimNextJob(db: Kysely<DB>, nodeId: string, ttlMs: number): Promise<EnvJobRow | undefined> {
  for (;;) {
    const next = await db
      .selectFrom('env_jobs')
      .select('id')
      .where('node_id', '=', nodeId)
      .where('status', '=', 'pending')
      .orderBy('create_ts')
      .orderBy('id')
      .executeTakeFirst();
    if (!next) return undefined;
    const r = await db
      .updateTable('env_jobs')
      .set({ status: 'running', start_ts: Date.now(), deadline_ts: Date.now() + ttlMs })
      .where('id', '=', next.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return getJob(db, next.id);
  }
}

/** Adds to a running job's log (up to its cut); any word of the node moves the job's deadline `ttlMs` on. */
export async function appendJobLog(
  db: Kysely<DB>,
  id: string,
  nodeId: string,
  text: string,
  ttlMs: number,
): Promise<boolean> {
  const r = await db
    .updateTable('env_jobs')
    .set({
      log: sql<string>`CASE WHEN length(log) < ${MAX_LOG_CHARS} THEN log || ${text} ELSE log END`,
      deadline_ts: Date.now() + ttlMs,
    })
    .where('id', '=', id)
    .where('node_id', '=', nodeId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Ends every unfinished job whose deadline has passed as failed, each with why; stamps a deadline `ttlMs` from now
 * on unfinished jobs that have none (stored before deadlines were). Conditional on the status, so a job that ends
 * meanwhile, or that another master expires, is left alone. Answers the jobs ended now.
 */
export async function expireJobs(db: Kysely<DB>, now: number, ttlMs: number): Promise<EnvJobRow[]> {
  await db
    .updateTable('env_jobs')
    .set({ deadline_ts: now + ttlMs })
    .where('status', 'in', ['pending', 'running'])
    .where('deadline_ts', 'is', null)
    .execute();
  const due = await db
    .selectFrom('env_jobs')
    .selectAll()
    .where('status', 'in', ['pending', 'running'])
    .where('deadline_ts', '<=', now)
    .execute();
  const ended: EnvJobRow[] = [];
  const span = ttlMs < 120_000 ? `${Math.round(ttlMs / 1000)} s` : `${Math.round(ttlMs / 60_000)} min`;
  for (const job of due) {
    const error =
      job.status === 'pending'
        ? `${NODE_OFFLINE_PREFIX} within ${span} (the node is offline or gone)`
        : `expired: its node did not report on it for ${span} (the node went away or restarted)`;
    const r = await db
      .updateTable('env_jobs')
      .set({ status: 'failed', error, finish_ts: now })
      .where('id', '=', job.id)
      .where('status', '=', job.status)
      .where('deadline_ts', '<=', now)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) ended.push({ ...job, status: 'failed', error, finish_ts: now });
  }
  return ended;
}

export async function finishJob(
  db: Kysely<DB>,
  id: string,
  nodeId: string,
  ok: boolean,
  error: string,
): Promise<boolean> {
  const r = await db
    .updateTable('env_jobs')
    .set({ status: ok ? 'done' : 'failed', error, finish_ts: Date.now() })
    .where('id', '=', id)
    .where('node_id', '=', nodeId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Stores a node's report; answers whether it is the node's first (a node that just joined). */
export async function saveInventory(db: Kysely<DB>, nodeId: string, inv: NodeInventoryBody): Promise<boolean> {
  const values = {
    package_manager: inv.package_manager,
    languages: JSON.stringify(inv.languages),
    pip: JSON.stringify(inv.pip),
    npm: JSON.stringify(inv.npm),
    update_ts: Date.now(),
  };
  const r = await db.updateTable('env_inventory').set(values).where('node_id', '=', nodeId).executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) return false;
  await db
    .insertInto('env_inventory')
    .values({ node_id: nodeId, ...values })
    .onConflict((oc) => oc.column('node_id').doUpdateSet(values))
    .execute();
  return true;
}

export function getInventory(db: Kysely<DB>, nodeId: string): Promise<InventoryRow | undefined> {
  return db.selectFrom('env_inventory').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
}

export function listInventories(db: Kysely<DB>): Promise<InventoryRow[]> {
  return db.selectFrom('env_inventory').selectAll().execute();
}

/** The node's status (`online`, `offline`, …), undefined for a node that is gone. */
export async function nodeStatus(db: Kysely<DB>, nodeId: string): Promise<string | undefined> {
  const row = await db.selectFrom('nodes').select('status').where('id', '=', nodeId).executeTakeFirst();
  return row?.status;
}

/**
 * Ends a job that has not ended, as failed with `error`; `running` only when `running` is true (a job that runs
 * on a node that is online is left to its tool). Answers whether it was ended now.
 */
export async function cancelJob(db: Kysely<DB>, id: string, error: string, running: boolean): Promise<boolean> {
  const r = await db
    .updateTable('env_jobs')
    .set({ status: 'failed', error, finish_ts: Date.now() })
    .where('id', '=', id)
    .where('status', 'in', running ? ['pending', 'running'] : ['pending'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export function listNodes(db: Kysely<DB>): Promise<{ id: string; name: string }[]> {
  return db.selectFrom('nodes').select(['id', 'name']).orderBy('type').orderBy('create_ts').execute();
}

export async function customLanguages(db: Kysely<DB>): Promise<EnvLanguageBody[]> {
  const rows = await db.selectFrom('env_languages').select('body').orderBy('key').execute();
  return rows.map((r) => JSON.parse(r.body) as EnvLanguageBody);
}

export async function putLanguage(db: Kysely<DB>, body: EnvLanguageBody): Promise<void> {
  const json = JSON.stringify(body);
  await db
    .insertInto('env_languages')
    .values({ key: body.key, body: json, create_ts: Date.now() })
    .onConflict((oc) => oc.column('key').doUpdateSet({ body: json }))
    .execute();
}

export async function deleteLanguage(db: Kysely<DB>, key: string): Promise<boolean> {
  const r = await db.deleteFrom('env_languages').where('key', '=', key).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export function everywhere(db: Kysely<DB>): Promise<Selectable<DB['env_everywhere']>[]> {
  return db.selectFrom('env_everywhere').selectAll().orderBy('target').orderBy('name').execute();
}

export async function markEverywhere(db: Kysely<DB>, target: string, name: string, version: string): Promise<void> {
  await db
    .insertInto('env_everywhere')
    .values({ target, name, version, create_ts: Date.now() })
    .onConflict((oc) => oc.columns(['target', 'name']).doUpdateSet({ version }))
    .execute();
}

export async function unmarkEverywhere(db: Kysely<DB>, target: string, name: string): Promise<void> {
  await db.deleteFrom('env_everywhere').where('target', '=', target).where('name', '=', name).execute();
}

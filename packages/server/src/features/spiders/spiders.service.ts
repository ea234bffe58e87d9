import { Value } from '@sinclair/typebox/value';
import type { TSchema, Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import {
  EMPTY_ID,
  isValidEnvName,
  newId,
  normaliseSourceFolder,
  RETRY_ON,
  RETRY_ON_DEFAULT,
  sourceFolderProblem,
  spiderLimitsOf,
  type CreateSpiderBody,
  type UpdateSpiderBody,
} from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import type { AppContext } from '../../context.ts';
import type { AuthUser } from '../../http/auth.ts';
import { HttpError, badRequest, conflict, notFound } from '../../http/errors.ts';
import { isUniqueViolation } from '../users/users.store.ts';
import { encryptSecret } from '../../crypto/secrets.ts';
import { collectBlobs, replaceFiles } from './files.store.ts';
import { claimCollection, collectionOwner, canUseCollection, spiderOwner, type Actor } from '../../policies/index.ts';
import { urlCredentials } from '../../outbound/git.ts';
import {
  deleteSpiderRow,
  insertSpider,
  spiderNameTaken,
  updateSpiderRow,
  type SpiderPatch,
  type SpiderRow,
} from './spiders.store.ts';
import { getProject } from '../projects/projects.store.ts';
import type { ZipContents } from './zip.ts';
import { filesInFolder, inferCommand } from './command-inference.ts';

// ---- delete guards ----

export type SpiderDeleteGuard = (db: Kysely<DB>, spiderId: string) => Promise<string | undefined>;
const deleteGuards: SpiderDeleteGuard[] = [];

/**
 * Lets another feature veto DELETE /spiders/{id}: a guard returns a reason (e.g. 'a task of this spider is
 * running') and the call answers 409 with it; undefined lets the deletion go on.
 */
export function registerSpiderDeleteGuard(fn: SpiderDeleteGuard): void {
  if (!deleteGuards.includes(fn)) deleteGuards.push(fn);
}

// ---- access ----

// The spider policy decides; the spider routes and the features built on spiders load spiders through it.
export { spiderFor, type SpiderAccess as Access } from '../../policies/index.ts';

/**
 * The collection a spider writes into, checked for the spider's owner by the collection policy. An explicit name
 * must be free or the owner's; the default `results_<name>` falls back to a name of its own when another user
 * already owns it.
 */
async function resolveCollection(
  db: Kysely<DB>,
  owner: Actor,
  given: string | undefined,
  name: string,
  spiderId: string,
): Promise<string> {
  if (given) {
    await claimCollection(db, owner, given);
    return given;
  }
  const fallback = `results_${name}`;
  const col = canUseCollection(owner, await collectionOwner(db, fallback)) ? fallback : `${fallback}_${spiderId}`;
  await claimCollection(db, owner, col);
  return col;
}

// ---- validation ----

/** Validates with TypeBox after the same coercions the JSON routes get ("1" → 1, "true" → true). */
export function parseWith<S extends TSchema>(schema: S, input: unknown, where = 'body'): Static<S> {
  const value = Value.Convert(schema, input);
  const first = Value.Errors(schema, value).First();
  if (first) {
    const field = first.path.replace(/^\//, '').replace(/\//g, '.');
    throw badRequest(`invalid ${where}${field ? ` field "${field}"` : ''}: ${first.message}`);
  }
  return value as Static<S>;
}

/** Multipart fields arrive as strings: JSON fields (envs, config) are parsed before validation. */
export function fieldsToSpiderInput(fields: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  for (const k of ['envs', 'config']) {
    if (typeof fields[k] === 'string') {
      try {
        out[k] = JSON.parse(fields[k]);
      } catch {
        throw badRequest(`invalid body field "${k}": must be JSON`);
      }
    }
  }
  if (fields.project_id === 'null') out.project_id = null;
  return out;
}

function checkName(name: string): string {
  const n = name.trim();
  if (!n) throw badRequest('spider name is required');
  // eslint-disable-next-line no-control-regex
  if (/[/\\\u0000-\u001f\u007f]/.test(n))
    throw badRequest('spider name must not contain slashes or control characters');
  return n;
}

function checkEnvs(envs: { name: string; value: string }[]): string {
  const seen = new Set<string>();
  for (const e of envs) {
    if (!isValidEnvName(e.name))
      throw badRequest(
        `environment variable name "${e.name}" is invalid (letters, digits and _, not starting with a digit)`,
      );
    if (seen.has(e.name)) throw badRequest(`environment variable "${e.name}" is given twice`);
    seen.add(e.name);
  }
  return JSON.stringify(envs.map((e) => ({ name: e.name, value: e.value })));
}

async function resolveProject(
  db: Kysely<DB>,
  projectId: string | null | undefined,
): Promise<string | null | undefined> {
  if (projectId === undefined) return undefined;
  if (projectId === null || projectId === '' || projectId === EMPTY_ID) return null;
  if (!(await getProject(db, projectId))) throw badRequest(`project ${projectId} does not exist`);
  return projectId;
}

const dupName = (name: string) => conflict(`a spider named "${name}" already exists for this owner`);

async function toPatch(ctx: AppContext, db: Kysely<DB>, input: UpdateSpiderBody): Promise<SpiderPatch> {
  const patch: SpiderPatch = {};
  if (input.name !== undefined) patch.name = checkName(input.name);
  if (input.display_name !== undefined) patch.display_name = input.display_name.trim();
  if (input.type !== undefined) patch.type = input.type;
  if (input.cmd !== undefined) patch.cmd = input.cmd;
  if (input.col !== undefined) patch.col = input.col.trim();
  if (input.src !== undefined) patch.src = checkSourceFolder(input.src);
  const project = await resolveProject(db, input.project_id);
  if (project !== undefined) patch.project_id = project;
  if (input.is_public !== undefined) patch.is_public = input.is_public ? 1 : 0;
  if (input.is_scrapy !== undefined) patch.is_scrapy = input.is_scrapy ? 1 : 0;
  if (input.is_dedup !== undefined) patch.is_dedup = input.is_dedup ? 1 : 0;
  if (input.dedup_field !== undefined) patch.dedup_field = input.dedup_field.trim();
  if (input.dedup_method !== undefined) patch.dedup_method = input.dedup_method;
  if (input.envs !== undefined) patch.envs = checkEnvs(input.envs);
  if (input.git_branch !== undefined) patch.git_branch = input.git_branch.trim();
  if (input.git_username !== undefined) patch.git_username = input.git_username;
  // Write-only: a value sets it, null clears it, '' (a form that never saw it) keeps it.
  if (input.git_password === null) patch.git_password_enc = '';
  else if (input.git_password) patch.git_password_enc = encryptSecret(ctx.config.dataDir, input.git_password);
  if (input.git_url !== undefined) {
    // user:password written into the URL become the stored (write-only) credentials; the URL keeps no secret
    const found = urlCredentials(input.git_url);
    patch.git_url = found.url;
    if (found.username && !input.git_username) patch.git_username = found.username;
    if (found.password && !input.git_password)
      patch.git_password_enc = encryptSecret(ctx.config.dataDir, found.password);
  }
  if (input.git_auto_sync !== undefined) patch.git_auto_sync = input.git_auto_sync ? 1 : 0;
  if (input.config !== undefined) patch.config = JSON.stringify(input.config);
  if (input.retries !== undefined) patch.retries = input.retries;
  if (input.retry_delay_seconds !== undefined) patch.retry_delay_seconds = input.retry_delay_seconds;
  if (input.retry_on !== undefined) patch.retry_on = RETRY_ON.filter((k) => input.retry_on!.includes(k)).join(',');
  if (input.max_running !== undefined) patch.max_running = input.max_running;
  return patch;
}

/** A source folder inside the spider's files, in its one written form; 400 otherwise. */
function checkSourceFolder(src: string): string {
  const problem = sourceFolderProblem(src);
  if (problem) throw badRequest(problem);
  return normaliseSourceFolder(src);
}

function checkDedup(row: { is_dedup: number; dedup_field: string }): void {
  if (row.is_dedup && !row.dedup_field.trim()) throw badRequest('dedupe field is required when dedupe is on');
}

export async function createSpider(
  ctx: AppContext,
  user: AuthUser,
  input: CreateSpiderBody,
  zip?: ZipContents,
): Promise<{ id: string; upload?: { files: number; isScrapy: boolean } }> {
  const { db } = ctx.store;
  const patch = await toPatch(ctx, db, input);
  const name = patch.name!;
  const now = Date.now();
  const row: SpiderRow = {
    id: newId(now),
    name,
    display_name: patch.display_name || name,
    type: patch.type ?? 'customized',
    cmd: patch.cmd?.trim() ? patch.cmd : zip ? inferCommand(filesInFolder(zip.files, patch.src ?? '')) : '',
    col: '',
    src: patch.src ?? '',
    project_id: patch.project_id ?? null,
    is_public: patch.is_public ?? 0,
    owner_id: user.id,
    is_scrapy: patch.is_scrapy ?? 0,
    is_dedup: patch.is_dedup ?? 0,
    dedup_field: patch.dedup_field ?? '',
    dedup_method: patch.dedup_method ?? 'ignore',
    envs: patch.envs ?? '[]',
    git_url: patch.git_url ?? '',
    git_branch: patch.git_branch ?? '',
    git_username: patch.git_username ?? '',
    git_password_enc: patch.git_password_enc ?? '',
    git_auto_sync: patch.git_auto_sync ?? 0,
    config: patch.config ?? '{}',
    retries: patch.retries ?? 0,
    retry_delay_seconds: patch.retry_delay_seconds ?? 10,
    retry_on: patch.retry_on ?? RETRY_ON_DEFAULT.join(','),
    max_running: patch.max_running ?? 0,
    limits: JSON.stringify(spiderLimitsOf(input.limits)),
    create_ts: now,
    update_ts: now,
  };
  checkDedup(row);
  if (await spiderNameTaken(db, user.id, name)) throw dupName(name);
  row.col = await resolveCollection(db, user, patch.col, name, row.id);
  try {
    const upload = await insertSpider(
      db,
      row,
      zip && ((trx) => replaceFiles(trx, row.id, zip.files, { dirs: zip.dirs })),
    );
    return { id: row.id, upload };
  } catch (err) {
    if (isUniqueViolation(err)) throw dupName(name);
    throw err;
  }
}

export async function updateSpider(
  ctx: AppContext,
  user: AuthUser,
  row: SpiderRow,
  input: UpdateSpiderBody,
): Promise<void> {
  const { db } = ctx.store;
  const patch = await toPatch(ctx, db, input);
  // Limits not named keep their stored value.
  if (input.limits) patch.limits = JSON.stringify(spiderLimitsOf({ ...spiderLimitsOf(row.limits), ...input.limits }));
  checkDedup({ is_dedup: patch.is_dedup ?? row.is_dedup, dedup_field: patch.dedup_field ?? row.dedup_field });
  if (patch.name !== undefined && patch.name !== row.name) {
    if (await spiderNameTaken(db, row.owner_id, patch.name)) throw dupName(patch.name);
  }
  if (patch.col !== undefined && patch.col !== row.col) {
    const owner = row.owner_id === user.id ? user : await spiderOwner(db, row.owner_id);
    if (!owner) throw badRequest('the owner of this spider no longer exists');
    patch.col = await resolveCollection(db, owner, patch.col, patch.name ?? row.name, row.id);
  }
  try {
    await updateSpiderRow(db, row.id, patch);
  } catch (err) {
    if (isUniqueViolation(err)) throw dupName(patch.name ?? row.name);
    throw err;
  }
}

/**
 * Asks the guards, then deletes the spider; its files (and other features' rows) go by cascade, its tasks in the
 * background (spider-purge.ts).
 */
export async function deleteSpider(ctx: AppContext, id: string): Promise<void> {
  const { db } = ctx.store;
  for (const guard of deleteGuards) {
    const reason = await guard(db, id);
    if (reason) throw new HttpError(409, `the spider cannot be deleted: ${reason}`);
  }
  const hashes = await deleteSpiderRow(db, id);
  if (!hashes) throw notFound('spider');
  await collectBlobs(db, hashes);
  ctx.events.emit('spider.deleted', id);
}

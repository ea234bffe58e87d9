import { rmSync } from 'node:fs';
import { folderOf, gitBranchProblem, gitUrlProblem, repoNameFromUrl, type ImportBody } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { AuthUser } from '../../http/auth.ts';
import { HttpError, badRequest } from '../../http/errors.ts';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { createSpider, deleteSpider } from '../spiders/spiders.service.ts';
import { getSpider, getSpiderWithOwner, presentSpider, updateSpiderRow } from '../spiders/spiders.store.ts';
import { listFiles } from '../spiders/files.store.ts';
import { fillMissingCommand } from '../spiders/command-inference.ts';
import { cacheDirOf, syncSpider, type GitSettings } from './git.service.ts';
import { claimAutoSync, listDueAutoSync } from './git.store.ts';

/** Creates a Git spider named `base` (`base_2`, `base_3` … when taken). */
async function createNamed(
  ctx: AppContext,
  user: AuthUser,
  base: string,
  fields: { git_url: string; git_branch: string; src?: string; is_scrapy?: boolean },
): Promise<{ id: string }> {
  for (let n = 1; n <= 20; n++) {
    const name = n === 1 ? base : `${base}_${n}`;
    try {
      return await createSpider(ctx, user, { name, display_name: name, type: 'customized', ...fields });
    } catch (err) {
      if (!(err instanceof HttpError && err.statusCode === 409)) throw err;
    }
  }
  throw badRequest(`could not find a free spider name for "${base}"`);
}

/** Folders of the spider's files that hold a scrapy.cfg (one Scrapy project each), the shallowest first. */
async function scrapyProjects(db: AppContext['store']['db'], spiderId: string): Promise<string[]> {
  return (await listFiles(db, spiderId))
    .filter((f) => !f.is_dir && (f.path === 'scrapy.cfg' || f.path.endsWith('/scrapy.cfg')))
    .map((f) => folderOf(f.path))
    .sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/** Syncs a new Git spider once and fills its command; a spider whose first sync fails is removed again. */
async function firstSync(ctx: AppContext, settings: GitSettings, id: string, policy: AddressPolicy) {
  const { db } = ctx.store;
  try {
    const row = (await getSpider(db, id))!;
    const result = await syncSpider(db, settings, row, 'reset', policy);
    return { row, result };
  } catch (err) {
    await deleteSpider(ctx, id).catch(() => undefined);
    rmSync(cacheDirOf(settings.dataDir, id), { recursive: true, force: true });
    throw err;
  }
}

/**
 * Imports a repository as a new spider named after it (`name_2`, `name_3` … when taken) and syncs it once. A
 * repository holding a Scrapy project in a sub-folder gets that folder as the spider's source folder; one holding
 * several Scrapy projects gives one spider per project (the first keeps the repository's name, the others add their
 * folder's name), each with its project's folder as source folder. All of them are listed in `projects`; when one
 * cannot be made, none is kept.
 */
export async function importRepository(
  ctx: AppContext,
  settings: GitSettings,
  user: AuthUser,
  body: ImportBody,
  policy: AddressPolicy,
) {
  const url = body.url.trim();
  const problem = gitUrlProblem(url);
  if (problem) throw badRequest(problem);
  const bp = body.branch ? gitBranchProblem(body.branch) : null;
  if (bp) throw badRequest(bp);
  const base = (body.name?.trim() || repoNameFromUrl(url)).replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || 'repo';
  const fields = { git_url: url, git_branch: body.branch ?? '' };
  const { db } = ctx.store;
  const first = await createNamed(ctx, user, base, fields);
  const { row, result } = await firstSync(ctx, settings, first.id, policy);
  const [main = '', ...others] = await scrapyProjects(db, first.id);
  if (main) await updateSpiderRow(db, first.id, { src: main, is_scrapy: 1 });
  await fillMissingCommand(db, { ...row, src: main });
  const projects = [{ _id: first.id, name: row.name, src: main }];
  try {
    for (const src of others) {
      const folderName = src
        .split('/')
        .pop()!
        .replace(/[^A-Za-z0-9_.-]/g, '_');
      const more = await createNamed(ctx, user, `${base}_${folderName}`.slice(0, 100), {
        ...fields,
        src,
        is_scrapy: true,
      });
      const synced = await firstSync(ctx, settings, more.id, policy);
      await fillMissingCommand(db, synced.row);
      projects.push({ _id: more.id, name: synced.row.name, src });
    }
  } catch (err) {
    // One import, one outcome: the spiders made so far go again with the one that failed.
    for (const p of projects) {
      await deleteSpider(ctx, p._id).catch(() => undefined);
      rmSync(cacheDirOf(settings.dataDir, p._id), { recursive: true, force: true });
    }
    throw err;
  }
  return { ...presentSpider((await getSpiderWithOwner(db, first.id))!), git: result, projects };
}

/** Auto-sync: spiders with git_auto_sync are synced when their last attempt is older than the interval. */
export function startAutoSync(ctx: AppContext, settings: GitSettings, policy: () => Promise<AddressPolicy>): void {
  const interval = ctx.config.gitAutoSyncMs;
  if (interval <= 0) return;
  const { db } = ctx.store;
  ctx.jobs.every({
    name: 'git-auto-sync',
    everyMs: Math.min(interval, 60_000),
    async run() {
      const due = Date.now() - interval;
      for (const row of await listDueAutoSync(db, due)) {
        // With several masters on one store each runs this job; whoever claims the attempt syncs.
        if (!(await claimAutoSync(db, row.id, due))) continue;
        await syncSpider(db, settings, row, 'sync', await policy()).catch((err) =>
          ctx.log.warn({ spider: row.id, err: (err as Error).message }, 'git auto-sync failed'),
        );
      }
    },
  });
}

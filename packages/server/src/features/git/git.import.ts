import { rmSync } from 'node:fs';
import { gitBranchProblem, gitUrlProblem, repoNameFromUrl, type ImportBody } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { AuthUser } from '../../http/auth.ts';
import { HttpError, badRequest } from '../../http/errors.ts';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { createSpider, deleteSpider } from '../spiders/spiders.service.ts';
import { getSpider, getSpiderWithOwner, presentSpider } from '../spiders/spiders.store.ts';
import { fillMissingCommand } from '../spiders/command-inference.ts';
import { cacheDirOf, syncSpider, type GitSettings } from './git.service.ts';
import { claimAutoSync, listDueAutoSync } from './git.store.ts';

/** Imports a repository as a new spider named after it (`name_2`, `name_3` … when taken) and syncs it once. */
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
  let created: { id: string } | undefined;
  for (let n = 1; n <= 20 && !created; n++) {
    const name = n === 1 ? base : `${base}_${n}`;
    try {
      created = await createSpider(ctx, user, {
        name,
        display_name: name,
        git_url: url,
        git_branch: body.branch ?? '',
        type: 'customized',
      });
    } catch (err) {
      if (!(err instanceof HttpError && err.statusCode === 409)) throw err;
    }
  }
  if (!created) throw badRequest(`could not find a free spider name for "${base}"`);
  const { db } = ctx.store;
  try {
    const row = (await getSpider(db, created.id))!;
    const result = await syncSpider(db, settings, row, 'reset', policy);
    await fillMissingCommand(db, row);
    return { ...presentSpider((await getSpiderWithOwner(db, created.id))!), git: result };
  } catch (err) {
    await deleteSpider(ctx, created.id).catch(() => undefined);
    rmSync(cacheDirOf(settings.dataDir, created.id), { recursive: true, force: true });
    throw err;
  }
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

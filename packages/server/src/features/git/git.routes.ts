import { rmSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { GitResolveAnswer, GitResolveBody, ImportBody, gitUrlProblem, repoNameFromUrl, gitBranchProblem } from '@crawldeck/shared';
import { resolveConflict } from './sync-merge.ts';
import { lastSyncedCommit } from './sync-merge.store.ts';
import { normalisePath } from '../spiders/paths.ts';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { HttpError, badRequest } from '../../http/errors.ts';
import { createSpider, deleteSpider, spiderFor } from '../spiders/spiders.service.ts';
import { getSpider, getSpiderWithOwner, presentSpider } from '../spiders/spiders.store.ts';
import { outboundPolicy } from '../../outbound/policy.ts';
import { fillMissingCommand } from '../spiders/command-inference.ts';
import { autoSyncIntervalMs, cacheDirOf, claimAutoSync, gitInfo, syncSpider } from './git.service.ts';

/** Optional `{branch}` body of sync/reset (the console may send no body at all). */
function branchOf(body: unknown): string | undefined {
  if (body == null) return undefined;
  const b = (body as { branch?: unknown }).branch;
  if (b === undefined || b === null || b === '') return undefined;
  if (typeof b !== 'string') throw badRequest('branch must be a string');
  return b;
}

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });

/** Git spiders (spec §4 sync/reset, §7 import) and auto-sync. */
export const gitFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const dataDir = ctx.config.dataDir;
  const policy = () => outboundPolicy(db, ctx.config.outboundAllow);

  app.get('/api/spiders/:id/git', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'read');
    return ok(await gitInfo(db, row));
  });

  app.post('/api/spiders/:id/git/sync', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    const result = await syncSpider(db, dataDir, row, 'sync', await policy(), branchOf(req.body));
    await fillMissingCommand(db, row);
    return ok(result);
  });

  app.post('/api/spiders/:id/git/reset', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    const result = await syncSpider(db, dataDir, row, 'reset', await policy(), branchOf(req.body));
    await fillMissingCommand(db, row);
    return ok(result);
  });

  // A conflict of the last sync settled per file: keep the console's version or take the upstream one.
  app.post(
    '/api/spiders/:id/git/resolve',
    { config: { access: 'user' }, schema: { params: IdParams, body: GitResolveBody, response: { 200: GitResolveAnswer } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      const synced = await lastSyncedCommit(db, row.id);
      if (!synced) throw badRequest('this spider has not been synced from Git yet');
      return ok(await resolveConflict(db, row.id, cacheDirOf(dataDir, row.id), synced, normalisePath(req.body.path), req.body.choice));
    },
  );

  app.post('/api/spiders/import/github', { config: { access: 'user' }, schema: { body: ImportBody } }, async (req) => {
    const url = req.body.url.trim();
    const problem = gitUrlProblem(url);
    if (problem) throw badRequest(problem);
    if (req.body.branch) {
      const bp = gitBranchProblem(req.body.branch);
      if (bp) throw badRequest(bp);
    }
    const base = (req.body.name?.trim() || repoNameFromUrl(url)).replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || 'repo';
    let created: { id: string } | undefined;
    for (let n = 1; n <= 20 && !created; n++) {
      const name = n === 1 ? base : `${base}_${n}`;
      try {
        created = await createSpider(ctx, req.user, { name, display_name: name, git_url: url, git_branch: req.body.branch ?? '', type: 'customized' });
      } catch (err) {
        if (!(err instanceof HttpError && err.statusCode === 409)) throw err;
      }
    }
    if (!created) throw badRequest(`could not find a free spider name for "${base}"`);
    try {
      const row = (await getSpider(db, created.id))!;
      const result = await syncSpider(db, dataDir, row, 'reset', await policy());
      await fillMissingCommand(db, row);
      return ok({ ...presentSpider((await getSpiderWithOwner(db, created.id))!), git: result });
    } catch (err) {
      await deleteSpider(ctx, created.id).catch(() => undefined);
      rmSync(cacheDirOf(dataDir, created.id), { recursive: true, force: true });
      throw err;
    }
  });

  // Auto-sync: spiders with git_auto_sync are synced when their last attempt is older than the interval.
  const interval = autoSyncIntervalMs();
  if (interval > 0) {
    let running = false;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        const due = Date.now() - interval;
        const rows = await db
          .selectFrom('spiders')
          .leftJoin('git_state', 'git_state.spider_id', 'spiders.id')
          .selectAll('spiders')
          .where('spiders.git_auto_sync', '=', 1)
          .where('spiders.git_url', '!=', '')
          .where((eb) => eb.or([eb('git_state.attempt_ts', 'is', null), eb('git_state.attempt_ts', '<', due)]))
          .execute();
        for (const row of rows) {
          // With several masters on one store each runs this loop; whoever claims the attempt syncs.
          if (!(await claimAutoSync(db, row.id, due))) continue;
          await syncSpider(db, dataDir, row, 'sync', await policy()).catch((err) => ctx.log.warn({ spider: row.id, err: (err as Error).message }, 'git auto-sync failed'));
        }
      } catch (err) {
        ctx.log.warn({ err }, 'git auto-sync round failed');
      } finally {
        running = false;
      }
    };
    const timer = setInterval(() => void tick(), Math.min(interval, 60_000));
    timer.unref();
    ctx.onClose(() => clearInterval(timer));
  }
};

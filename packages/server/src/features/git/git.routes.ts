import { Type } from '@sinclair/typebox';
import {
  GitInfo,
  GitResolveAnswer,
  GitResolveBody,
  GitSyncResult,
  ImportBody,
  ImportedSpider,
  okResponse,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import { useSecretKey } from '../../crypto/secrets.ts';
import { spiderFor } from '../spiders/spiders.service.ts';
import { outboundPolicy } from '../../outbound/policy.ts';
import { fillMissingCommand } from '../spiders/command-inference.ts';
import { normalisePath } from '../spiders/paths.ts';
import { cacheDirOf, gitInfo, syncSpider, type GitSettings } from './git.service.ts';
import { resolveConflict } from './sync-merge.ts';
import { lastSyncedCommit } from './sync-merge.store.ts';
import { importRepository, startAutoSync } from './git.import.ts';

/** Optional `{branch}` body of sync/reset (the console may send no body at all). */
function branchOf(body: unknown): string | undefined {
  if (body == null) return undefined;
  const b = (body as { branch?: unknown }).branch;
  if (b === undefined || b === null || b === '') return undefined;
  if (typeof b !== 'string') throw badRequest('branch must be a string');
  return b;
}

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });

/** Git spiders: status, sync and reset of one spider, import of a repository as a new spider, and auto-sync. */
export const gitFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const { config } = ctx;
  // Git passwords are the stored secrets: their key comes from the configuration when one is set.
  useSecretKey(config.dataDir, config.secretKey);
  const settings: GitSettings = {
    dataDir: config.dataDir,
    timeoutMs: config.gitTimeoutMs,
    maxEntries: config.zipMaxEntries,
    maxBytes: config.zipMaxBytes,
    childPath: config.childPath,
  };
  const policy = () => outboundPolicy(db, config.outboundAllow);
  const user = { access: 'user' as const };

  app.get(
    '/api/spiders/:id/git',
    { config: user, schema: { params: IdParams, response: okResponse(GitInfo) } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await gitInfo(db, row));
    },
  );

  for (const mode of ['sync', 'reset'] as const) {
    app.post(
      `/api/spiders/:id/git/${mode}`,
      { config: user, schema: { params: IdParams, response: okResponse(GitSyncResult) } },
      async (req) => {
        const row = await spiderFor(db, req.user, req.params.id, 'write');
        const result = await syncSpider(db, settings, row, mode, await policy(), branchOf(req.body));
        await fillMissingCommand(db, row);
        return ok(result);
      },
    );
  }

  // A conflict of the last sync settled per file: keep the console's version or take the upstream one.
  app.post(
    '/api/spiders/:id/git/resolve',
    { config: user, schema: { params: IdParams, body: GitResolveBody, response: { 200: GitResolveAnswer } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      const synced = await lastSyncedCommit(db, row.id);
      if (!synced) throw badRequest('this spider has not been synced from Git yet');
      const file = normalisePath(req.body.path);
      const cache = { dir: cacheDirOf(settings.dataDir, row.id), childPath: settings.childPath };
      return ok(await resolveConflict(db, row.id, cache, synced, file, req.body.choice));
    },
  );

  app.post(
    '/api/spiders/import/github',
    { config: user, schema: { body: ImportBody, response: okResponse(ImportedSpider) } },
    async (req) => {
      return ok(await importRepository(ctx, settings, req.user, req.body, await policy()));
    },
  );

  startAutoSync(ctx, settings, policy);
};

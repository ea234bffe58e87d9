import { CleanupResult, DatabaseInfo, UpdateDatabaseBody, okResponse } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { putSetting } from '../system/settings.store.ts';
import { RETENTION_KEY, cleanupTaskLogs, databaseInfo } from './database.service.ts';

const CLEANUP_EVERY_MS = 3600_000;
const admin = { access: 'admin' as const };

/** Settings → Database: engine, location, size, health, row counts, task-log retention and its cleanup job. */
export const databaseFeature: Feature = (app, ctx) => {
  const { store } = ctx;

  app.get('/api/system/database', { config: admin, schema: { response: okResponse(DatabaseInfo) } }, async () =>
    ok(await databaseInfo(store)),
  );

  app.post(
    '/api/system/database',
    { config: admin, schema: { body: UpdateDatabaseBody, response: okResponse(DatabaseInfo) } },
    async (req) => {
      await putSetting(store.db, RETENTION_KEY, req.body.log_retention_days);
      return ok(await databaseInfo(store));
    },
  );

  app.post(
    '/api/system/database/cleanup',
    { config: admin, schema: { response: okResponse(CleanupResult) } },
    async () => ok(await cleanupTaskLogs(store)),
  );

  // Hourly on every master: the delete is idempotent, so several masters on one PostgreSQL do no harm.
  ctx.jobs.every({
    name: 'log-retention',
    everyMs: CLEANUP_EVERY_MS,
    async run() {
      const r = await cleanupTaskLogs(store);
      if (r.deleted) ctx.log.info({ deleted: r.deleted }, 'task-log retention cleanup');
    },
  });
};

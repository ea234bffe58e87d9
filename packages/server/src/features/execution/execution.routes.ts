import type { Feature } from '../../context.ts';
import { registerIngestRoutes } from './ingest.routes.ts';
import { startRetryWake } from './retry-wake.ts';

/**
 * Task execution as a feature: the runtime made at start-up (app.ts) starts its loops here and stops them at
 * shutdown; the node socket and the node API (logs, items, files a node fetches) are its routes.
 */
export const executionFeature: Feature = async (app, ctx) => {
  const rt = ctx.execution;
  await rt.start();
  // Node sockets are accepted from the moment the server listens: the offline clock starts then, not before.
  app.addHook('onListen', () => rt.acceptNodes());
  const wake = startRetryWake(ctx.jobs, ctx.store.db, () => rt.scheduleDispatch());
  ctx.onClose(async () => {
    await wake.stop();
    await rt.close();
  });
  registerIngestRoutes(app, ctx, rt);
};

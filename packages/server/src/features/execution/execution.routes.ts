import type { Feature } from '../../context.ts';
import { registerIngestRoutes } from './ingest.routes.ts';

/**
 * Task execution as a feature: the runtime made at start-up (app.ts) starts its loops here and stops them at
 * shutdown; the node socket and the node API (logs, items, files a node fetches) are its routes.
 */
export const executionFeature: Feature = async (app, ctx) => {
  const rt = ctx.execution;
  await rt.start();
  // Node sockets are accepted from the moment the server listens: the offline clock starts then, not before.
  app.addHook('onListen', () => rt.acceptNodes());
  ctx.onClose(() => rt.close());
  registerIngestRoutes(app, ctx, rt);
};

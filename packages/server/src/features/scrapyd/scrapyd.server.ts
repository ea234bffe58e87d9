import Fastify from 'fastify';
import fastifyMultipart from '@fastify/multipart';
import type { AppContext, TypedApp } from '../../context.ts';
import type { Store } from '../../store/db.ts';
import type { AuthOptions } from '../../http/auth.ts';
import { authPlugin } from '../../http/auth.ts';
import { NODE_NAME, scrapydRoutes } from './scrapyd.routes.ts';

/**
 * The Scrapyd web service on a port of its own, at the root as Scrapyd serves it, for tools that take only
 * host:port (ScrapydWeb). Nothing else of the master is served there; the same sign-in rules apply.
 */
export async function startScrapydServer(
  ctx: AppContext,
  auth: (store: Store) => AuthOptions,
  port: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({
    loggerInstance: ctx.log,
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    trustProxy: ctx.config.trustedProxies.length > 0 ? ctx.config.trustedProxies : false,
    forceCloseConnections: true,
  }) as unknown as TypedApp;
  await app.register(authPlugin, auth(ctx.store));
  await app.register(fastifyMultipart, { limits: { fileSize: ctx.config.zipMaxBytes, files: 1, fields: 10 } });
  await scrapydRoutes(app, ctx, '');
  app.setNotFoundHandler((req, reply) =>
    reply.status(404).send({ node_name: NODE_NAME, status: 'error', message: `${req.url.split('?')[0]} not found` }),
  );
  await app.listen({ port, host: ctx.config.host });
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  const host = ctx.config.host === '0.0.0.0' || ctx.config.host === '::' ? '127.0.0.1' : ctx.config.host;
  return { url: `http://${host}:${bound}`, close: () => app.close() };
}

import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import Fastify, { type FastifyError } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fastifyStatic from '@fastify/static';
import fastifyMultipart from '@fastify/multipart';
import fastifyWebsocket from '@fastify/websocket';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { VERSION } from '@crawldeck/shared';
import type { MasterConfig } from './config.ts';
import type { AppContext, TypedApp } from './context.ts';
import type { Store } from './store/db.ts';
import { authPlugin } from './http/auth.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { fail } from './http/envelope.ts';
import { HttpError } from './http/errors.ts';
import { features } from './features/index.ts';

export interface BuiltApp {
  app: TypedApp;
  ctx: AppContext;
  /** Runs the features' shutdown work, then closes the HTTP server. */
  close(): Promise<void>;
}

/** Turns any error into the envelope with a real status and a message the console can show. */
function errorReply(err: FastifyError | HttpError | Error): { status: number; message: string } {
  if (err instanceof HttpError) return { status: err.statusCode, message: err.message };
  const fe = err as FastifyError;
  if (fe.validation) {
    const where = fe.validationContext ?? 'request';
    const first = fe.validation[0];
    const field = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : (first?.params as { missingProperty?: string })?.missingProperty;
    return { status: 400, message: `invalid ${where}${field ? ` field "${field}"` : ''}: ${first?.message ?? fe.message}` };
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return { status: fe.statusCode, message: fe.message };
  return { status: 500, message: 'internal server error' };
}

export async function buildApp(config: MasterConfig, store: Store): Promise<BuiltApp> {
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: 16 * 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    return503OnClosing: true,
    forceCloseConnections: true,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypedApp;

  const closers: (() => Promise<void> | void)[] = [];
  const ctx: AppContext = { config, store, log: app.log, events: new EventEmitter(), onClose: (fn) => closers.push(fn) };
  ctx.events.setMaxListeners(0);

  app.setErrorHandler((err, req, reply) => {
    const { status, message } = errorReply(err as Error);
    if (status === 500) req.log.error({ err }, 'request failed');
    reply.status(status).send(fail(message));
  });

  await registerSecurityHeaders(app);
  await app.register(fastifySwagger, {
    openapi: { info: { title: 'Crawldeck API', version: VERSION }, components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization' } } }, security: [{ token: [] }] },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/openapi' });
  await app.register(authPlugin, { store });
  await app.register(fastifyMultipart, { limits: { fileSize: 512 * 1024 * 1024, files: 1, fields: 50 } });
  await app.register(fastifyWebsocket, { options: { maxPayload: 16 * 1024 * 1024 } });

  for (const feature of features) await feature(app, ctx);

  const hasConsole = existsSync(`${config.consoleDir}/index.html`);
  if (hasConsole) await app.register(fastifyStatic, { root: config.consoleDir, wildcard: false, index: ['index.html'] });

  // Unknown API paths answer JSON; any other GET serves the SPA so deep links work after a reload.
  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith('/api/') || req.method !== 'GET') {
      return reply.status(404).send(fail(`no such route: ${req.method} ${req.url.split('?')[0]}`));
    }
    if (!hasConsole) return reply.status(404).type('text/plain').send('The console is not built: run `npm run build`.');
    return reply.type('text/html').sendFile('index.html');
  });

  return {
    app,
    ctx,
    async close() {
      for (const fn of closers.reverse()) await fn();
      await app.close();
    },
  };
}

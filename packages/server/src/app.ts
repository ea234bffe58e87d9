import { existsSync } from 'node:fs';
import Fastify, { LogController, type FastifyError } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fastifyStatic from '@fastify/static';
import fastifyMultipart from '@fastify/multipart';
import fastifyWebsocket from '@fastify/websocket';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { VERSION, codeForText, errorText } from '@crawldeck/shared';
import type { MasterConfig } from './config.ts';
import type { AppContext, CoreContext, TypedApp } from './context.ts';
import { TaskRuntime } from './features/execution/runtime.ts';
import { isStoreUnavailable, type Store } from './store/db.ts';
import { authPlugin, registerWithAccess, type AuthOptions } from './http/auth.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { consoleStaticOptions, registerCompression } from './http/compression.ts';
import { INDEX_FILES, consoleIndex } from './http/console-index.ts';
import { fail } from './http/envelope.ts';
import { loggerOptions, registerRequestLog } from './http/log.ts';
import { HttpError, type Coded } from './http/errors.ts';
import { validationError } from './http/errors-validation.ts';
import { refuseNonFiniteNumbers } from './http/bounds.ts';
import { EventBus } from './events.ts';
import { JobRunner } from './jobs/job-runner.ts';
import { features } from './features/index.ts';

export interface BuiltApp {
  app: TypedApp;
  ctx: AppContext;
  /** Runs the features' shutdown work, then closes the HTTP server. */
  close(): Promise<void>;
}

/** PostgreSQL is stopped, restarting or unreachable: the request may be tried again shortly. */
const storeUnavailable = new HttpError(503, errorText('store.unavailable'), { code: 'store.unavailable' });

/** Turns any error into the envelope: a real status, English text the console can show, a catalogued code. */
function errorReply(err: FastifyError | HttpError | Error): { status: number; message: string } & Coded {
  if (err instanceof HttpError)
    return { status: err.statusCode, message: err.message, code: err.code, params: err.params };
  if (isStoreUnavailable(err)) return errorReply(storeUnavailable);
  const fe = err as FastifyError;
  if (fe.validation) return { status: 400, ...validationError(fe) };
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500)
    return { status: fe.statusCode, message: fe.message, ...codeForText(fe.statusCode, fe.message) };
  return { status: 500, message: errorText('internal'), code: 'internal' };
}

/**
 * Whether a raw URL names an /api path (or one of the Scrapyd service's, off or on) in any spelling the router or
 * a proxy might normalise.
 */
function looksLikeApi(url: string): boolean {
  let p = url.split('?')[0];
  try {
    p = decodeURIComponent(p);
  } catch {
    return true;
  }
  // Any `api` segment counts, so dot-segments (`/x/../api/…`) are caught too; console deep links have none.
  return /(^|[/\\])(api|scrapyd)([/\\]|$)/i.test(p);
}

export const authOptions = (config: MasterConfig, store: Store): AuthOptions => ({
  store,
  nodeKey: config.nodeKey,
  basicLimits: { freeFailures: config.loginFreeFailures, maxDelayMs: config.loginMaxDelayMs },
});

export async function buildApp(config: MasterConfig, store: Store): Promise<BuiltApp> {
  const app = Fastify({
    logger: loggerOptions(config),
    bodyLimit: 16 * 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    // The client address (sign-in limits, logs) comes from X-Forwarded-For only through a listed proxy.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    return503OnClosing: true,
    // One entry per request, after the reply, at a level of its own (registerRequestLog).
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypedApp;

  const closers: (() => Promise<void> | void)[] = [];
  const core: CoreContext = {
    config,
    store,
    log: app.log,
    events: new EventBus(),
    jobs: new JobRunner(app.log),
    onClose: (fn) => closers.push(fn),
  };
  // The same object, so that what is cached per context (writers, lists) is one for the runtime and the routes.
  const ctx: AppContext = Object.assign(core, { execution: new TaskRuntime(core) });

  app.setErrorHandler((err, req, reply) => {
    const { status, message, code, params } = errorReply(err as Error);
    if (status === 500) req.log.error({ err }, 'request failed');
    if (status === 503 && isStoreUnavailable(err)) {
      req.log.warn({ err: (err as Error).message }, 'request failed: database unavailable');
      reply.header('retry-after', '2');
    }
    reply.status(status).send(fail(message, { code, params }));
  });
  app.addHook('preHandler', refuseNonFiniteNumbers);
  store.onConnectionError = (err) =>
    app.log.warn({ err: err.message }, 'a database connection broke (PostgreSQL restarted or unreachable)');

  registerRequestLog(app, config);
  await registerSecurityHeaders(app);
  await registerCompression(app);
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Crawldeck API', version: VERSION },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization' } } },
      security: [{ token: [] }],
    },
  });
  await app.register(authPlugin, authOptions(config, store));
  // The OpenAPI page documents the API and holds no data: readable without a token.
  await registerWithAccess(app, 'public', (pub) => pub.register(fastifySwaggerUi, { routePrefix: '/api/openapi' }));
  await app.register(fastifyMultipart, { limits: { fileSize: 512 * 1024 * 1024, files: 1, fields: 50 } });
  await app.register(fastifyWebsocket, { options: { maxPayload: 16 * 1024 * 1024 } });

  for (const feature of features) await feature(app, ctx);

  const hasConsole = existsSync(`${config.consoleDir}/index.html`);
  const indexPage = hasConsole ? consoleIndex(config.consoleDir) : undefined;
  // The console's files are public; the not-found handler below is public too (the auth hook lets 404s through).
  // index.html is left to that handler: it names the chunk of the visitor's language as a preload.
  if (hasConsole)
    await registerWithAccess(app, 'public', (pub) =>
      pub.register(fastifyStatic, {
        root: config.consoleDir,
        wildcard: false,
        index: false,
        globIgnore: INDEX_FILES,
        ...consoleStaticOptions(),
      }),
    );

  // Unknown API paths (also encoded, doubled-slash or other-case spellings) answer JSON; any other GET serves the
  // SPA so deep links work after a reload.
  app.setNotFoundHandler((req, reply) => {
    if (looksLikeApi(req.url) || (req.method !== 'GET' && req.method !== 'HEAD')) {
      const route = { method: req.method, path: req.url.split('?')[0] };
      return reply
        .status(404)
        .send(fail(errorText('route.not_found', route), { code: 'route.not_found', params: route }));
    }
    if (!indexPage) return reply.status(404).type('text/plain').send('The console is not built: run `npm run build`.');
    // the page depends on the language cookie: revalidated on every load, and no cache may hand it to another visitor
    const page = indexPage(req.headers);
    if (page.encoding) reply.header('content-encoding', page.encoding);
    return reply
      .status(200)
      .header('cache-control', 'no-cache')
      .header('vary', 'cookie, accept-encoding')
      .type('text/html; charset=utf-8')
      .send(page.body);
  });

  return {
    app,
    ctx,
    async close() {
      // Background jobs stop first, so none of them meets a feature that has already closed.
      await ctx.jobs.drain();
      for (const fn of closers.reverse()) await fn();
      await app.close();
    },
  };
}

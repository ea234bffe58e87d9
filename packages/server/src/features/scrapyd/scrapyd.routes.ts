import os from 'node:os';
import { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  SCRAPYD_ARGS_MAX,
  SCRAPYD_NAME_MAX,
  SCRAPYD_VALUE_MAX,
  ScrapydAddVersion,
  ScrapydCancelled,
  ScrapydDaemonStatus,
  ScrapydDone,
  ScrapydJobState,
  ScrapydJobs,
  ScrapydProjects,
  ScrapydScheduled,
  ScrapydSpiders,
  ScrapydVersions,
  Str,
  scrapydResponse,
  type ScrapydError,
} from '@crawldeck/shared';
import type { AppContext, Feature, TypedApp } from '../../context.ts';
import { HttpError } from '../../http/errors.ts';
import { isStoreUnavailable } from '../../store/db.ts';
import { readForm } from '../../http/multipart.ts';
import { logLinesAfter } from '../tasks/tasks.store.ts';
import { resultsReader } from '../results/results.reader.ts';
import { mergeParams, parseForm, type ScrapydParams } from './scrapyd-params.ts';
import * as service from './scrapyd.service.ts';

/** Scrapyd names itself by its host name in every answer. */
export const NODE_NAME = os.hostname();

/** Query strings and form bodies: bounded names, each with a bounded list of bounded values. */
const Params = Type.Record(
  Type.String({ pattern: `^[^\\u0000]{1,${SCRAPYD_NAME_MAX}}$` }),
  Type.Array(Str(SCRAPYD_VALUE_MAX), { maxItems: SCRAPYD_ARGS_MAX }),
  { maxProperties: SCRAPYD_ARGS_MAX + 10 },
);
const FileParams = Type.Object({
  project: Str(SCRAPYD_NAME_MAX),
  spider: Str(SCRAPYD_NAME_MAX),
  file: Str(SCRAPYD_NAME_MAX + 10),
});

const LOG_PAGE = 5000;
const ITEM_PAGE = 1000;

/**
 * Scrapyd answers every refusal with HTTP 200 and `{status: 'error', message}`; the tools built for it read the
 * message from there. Only sign-in problems (401, 429) and an unavailable store (503) keep their status; a 401
 * asks for basic authentication, as Scrapyd does when it has a password.
 */
function scrapydErrors(app: TypedApp): void {
  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    const answer = (status: number, message: string) =>
      reply.status(status).send({ node_name: NODE_NAME, status: 'error', message } satisfies ScrapydError);
    if (isStoreUnavailable(err)) return answer(503, 'the database is unavailable; try again shortly');
    const status = err instanceof HttpError ? err.statusCode : (err.statusCode ?? 500);
    if (status >= 500) {
      req.log.error({ err }, 'scrapyd request failed');
      return answer(500, 'internal error');
    }
    if (status === 401) reply.header('www-authenticate', 'Basic realm="Scrapyd"');
    if (status === 401 || status === 429) return answer(status, err.message);
    if (status === 404 && req.routeOptions.config.scrapydFile) return answer(404, err.message);
    const message = (err as FastifyError).validation ? `invalid request: ${err.message}` : err.message;
    return answer(200, message);
  });
}

const ok = <T extends object>(body: T) => ({ node_name: NODE_NAME, status: 'ok' as const, ...body });
const paramsOf = (req: FastifyRequest) => mergeParams(req.query, req.body);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A Scrapyd log or items file: a missing one answers 404, as a missing file does (JSON answers say 200). */
    scrapydFile?: boolean;
  }
}

/** Every endpoint of Scrapyd's JSON web service, at `prefix` (`/scrapyd` on the main port, the root on its own). */
export async function scrapydRoutes(app: TypedApp, ctx: AppContext, prefix: string): Promise<void> {
  await app.register(
    async (sub) => {
      const api = sub as unknown as TypedApp;
      scrapydErrors(api);
      api.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: 1024 * 1024 },
        (_req, body, done) => done(null, parseForm(String(body))),
      );
      jsonRoutes(api, ctx, prefix);
      fileRoutes(api, ctx);
    },
    { prefix },
  );
}

const config = { access: 'user', basicAuth: true } as const;
const get = (response: Parameters<typeof scrapydResponse>[0]) => ({
  config,
  schema: { hide: true, querystring: Params, response: scrapydResponse(response) },
});
const post = (response: Parameters<typeof scrapydResponse>[0]) => ({
  config,
  schema: { hide: true, querystring: Params, body: Params, response: scrapydResponse(response) },
});

function jsonRoutes(app: TypedApp, ctx: AppContext, prefix: string): void {
  app.get('/daemonstatus.json', get(ScrapydDaemonStatus), async (req) => ok(await service.daemonStatus(ctx, req.user)));
  app.get('/listprojects.json', get(ScrapydProjects), async (req) => ok(await service.listProjects(ctx, req.user)));
  app.get('/listversions.json', get(ScrapydVersions), async (req) =>
    ok(await service.listVersions(ctx, req.user, paramsOf(req))),
  );
  app.get('/listspiders.json', get(ScrapydSpiders), async (req) =>
    ok(await service.listSpiders(ctx, req.user, paramsOf(req))),
  );
  app.get('/listjobs.json', get(ScrapydJobs), async (req) =>
    ok(await service.listJobs(ctx, req.user, paramsOf(req), { prefix })),
  );
  app.get('/status.json', get(ScrapydJobState), async (req) =>
    ok(await service.jobStatus(ctx, req.user, paramsOf(req))),
  );
  app.post(
    '/addversion.json',
    { config, schema: { hide: true, response: scrapydResponse(ScrapydAddVersion) } },
    async (req) => {
      const form = await readForm(req, {
        fileField: 'egg',
        maxFileBytes: ctx.config.zipMaxBytes,
        maxFields: 10,
        maxFieldBytes: SCRAPYD_VALUE_MAX,
        tooLarge: `the egg is larger than the upload limit (CRAWLDECK_ZIP_MAX_BYTES)`,
      });
      const fields: ScrapydParams = mergeParams(req.query, form.fields);
      return ok(await service.addVersion(ctx, req.user, fields, form.file?.data));
    },
  );
  app.post('/schedule.json', post(ScrapydScheduled), async (req) =>
    ok(await service.schedule(ctx, req.user, paramsOf(req))),
  );
  app.post('/cancel.json', post(ScrapydCancelled), async (req) =>
    ok(await service.cancel(ctx, req.user, paramsOf(req))),
  );
  app.post('/delversion.json', post(ScrapydDone), async (req) => {
    await service.delVersion(ctx, req.user, paramsOf(req));
    return ok({});
  });
  app.post('/delproject.json', post(ScrapydDone), async (req) => {
    await service.delProject(ctx, req.user, paramsOf(req));
    return ok({});
  });
}

/**
 * A job's log and items as files, where listjobs' log_url and items_url point. A file that is not there (or not the
 * caller's to read) is a 404 with Scrapyd's error JSON, as a missing file is for Scrapyd.
 */
function fileRoutes(app: TypedApp, ctx: AppContext): void {
  const db = ctx.store.db;
  const jobOf = async (req: FastifyRequest, params: Static<typeof FileParams>, ext: string) => {
    const { project, spider, file } = params;
    const missing = () => new HttpError(404, `${req.url.split('?')[0]} not found`);
    if (!file.endsWith(ext)) throw missing();
    const t = await service.jobTask(ctx, req.user, project, file.slice(0, -ext.length)).catch((err: unknown) => {
      throw err instanceof HttpError && err.statusCode < 500 ? missing() : err;
    });
    if (service.presentJob(t, project, { prefix: '' }).spider !== spider) throw missing();
    return t;
  };
  const text = (reply: FastifyReply, type: string, body: AsyncGenerator<string>) =>
    reply.type(type).send(Readable.from(body));
  const file = { config: { ...config, scrapydFile: true }, schema: { hide: true, params: FileParams } };
  app.get('/logs/:project/:spider/:file', file, async (req, reply) => {
    const t = await jobOf(req, req.params, '.log');
    return text(reply, 'text/plain; charset=utf-8', logLines(db, t.id));
  });
  app.get('/items/:project/:spider/:file', file, async (req, reply) => {
    const t = await jobOf(req, req.params, '.jl');
    const reader = await resultsReader(ctx, t.id);
    return text(reply, 'application/x-ndjson; charset=utf-8', itemLines(reader.pages(ITEM_PAGE)));
  });
}

async function* logLines(db: AppContext['store']['db'], taskId: string): AsyncGenerator<string> {
  for (let after = 0; ; after += LOG_PAGE) {
    const lines = await logLinesAfter(db, taskId, after, LOG_PAGE);
    if (!lines.length) return;
    yield lines.map((l) => `${l.msg}\n`).join('');
  }
}

async function* itemLines(pages: AsyncGenerator<Record<string, unknown>[]>): AsyncGenerator<string> {
  for await (const page of pages) yield page.map((item) => `${JSON.stringify(item)}\n`).join('');
}

/** Mounted under `/scrapyd` when the service is on (CRAWLDECK_SCRAPYD=1); its own port is started by the master. */
export const scrapydFeature: Feature = async (app, ctx) => {
  if (!ctx.config.scrapyd) return;
  await scrapydRoutes(app, ctx, '/scrapyd');
};

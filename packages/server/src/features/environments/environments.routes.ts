/**
 * Node environments over HTTP: the console's routes (states per node, jobs, the dependencies view, languages,
 * index settings, index lookup) and the node's routes (report, claim the next job, ship its log, finish it).
 */
import { Type } from '@sinclair/typebox';
import {
  DependencyRow,
  EnvClaim,
  NodeEnvSettings,
  EnvJob,
  EnvJobBody,
  EnvJobFinishBody,
  EnvJobLogBody,
  EnvJobQuery,
  EnvSettings,
  IdParams,
  EnvLanguage,
  EnvLanguageBody,
  NodeEnvironment,
  NodeInventoryBody,
  OkOf,
  PackageSearchHit,
  PackageSearchQuery,
} from '@crawldeck/shared';
import type { FastifyRequest } from 'fastify';
import type { AppContext, Feature, TypedApp } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { notFound } from '../../http/errors.ts';
import { assertEnvJobs, assertEnvironment, nodeFor } from '../../policies/index.ts';
import { EnvironmentsService, presentJob } from './environments.service.ts';
import * as store from './environments.store.ts';
import { startJobExpiry } from './job-expiry.ts';

const user = { access: 'user' as const };
const admin = { access: 'admin' as const };
const node = { access: 'node' as const };
const Done = OkOf(Type.Null());
const KeyParams = Type.Object({ key: EnvLanguageBody.properties.key });

/** The node whose own key signed the request (checked by the access hook): it acts only on its own jobs. */
const nodeId = (req: FastifyRequest): string => req.nodeId;

export const environmentsFeature: Feature = (app, ctx) => {
  const svc = new EnvironmentsService(ctx);
  const { db } = ctx.store;
  startJobExpiry(ctx);

  // ------------------------------------------------------------------ console

  app.get(
    '/api/nodes/:id/environment',
    { config: user, schema: { params: IdParams, response: { 200: OkOf(NodeEnvironment) } } },
    async (req) => {
      const n = await nodeFor(db, req.user, req.params.id, 'read');
      return ok(await svc.nodeEnvironment(n.id));
    },
  );

  app.get(
    '/api/env-dependencies',
    { config: user, schema: { response: { 200: OkOf(Type.Array(DependencyRow)) } } },
    async (req) => {
      assertEnvironment(req.user, 'read');
      const rows = await svc.dependencies();
      return ok(rows, rows.length);
    },
  );

  app.get(
    '/api/env-jobs',
    { config: admin, schema: { querystring: EnvJobQuery, response: { 200: OkOf(Type.Array(EnvJob)) } } },
    async (req) => {
      assertEnvJobs(req.user);
      const names = await svc.nodeNames();
      const rows = await store.listJobs(db, req.query);
      return ok(
        rows.map((r) => presentJob(r, names)),
        rows.length,
      );
    },
  );

  app.get(
    '/api/env-jobs/:id',
    { config: admin, schema: { params: IdParams, response: { 200: OkOf(EnvJob) } } },
    async (req) => {
      assertEnvJobs(req.user);
      const row = await store.getJob(db, req.params.id);
      if (!row) throw notFound('job');
      return ok(presentJob(row, await svc.nodeNames()));
    },
  );

  app.post(
    '/api/env-jobs',
    { config: admin, schema: { body: EnvJobBody, response: { 200: OkOf(Type.Array(EnvJob)) } } },
    async (req) => {
      assertEnvironment(req.user, 'change');
      const jobs = await svc.startJobs(req.user, req.body);
      return ok(jobs, jobs.length);
    },
  );

  app.post(
    '/api/env-jobs/:id/cancel',
    { config: admin, schema: { params: IdParams, response: { 200: OkOf(EnvJob) } } },
    async (req) => {
      assertEnvironment(req.user, 'change');
      return ok(await svc.cancelJob(req.user, req.params.id));
    },
  );

  app.get(
    '/api/env-languages',
    { config: user, schema: { response: { 200: OkOf(Type.Array(EnvLanguage)) } } },
    async (req) => {
      assertEnvironment(req.user, 'read');
      const rows = await svc.languages();
      return ok(rows, rows.length);
    },
  );

  app.put(
    '/api/env-languages',
    { config: admin, schema: { body: EnvLanguageBody, response: { 200: Done } } },
    async (req) => {
      assertEnvironment(req.user, 'change');
      await svc.addLanguage(req.body);
      return ok(null);
    },
  );

  app.delete(
    '/api/env-languages/:key',
    { config: admin, schema: { params: KeyParams, response: { 200: Done } } },
    async (req) => {
      assertEnvironment(req.user, 'change');
      await svc.removeLanguage(req.params.key);
      return ok(null);
    },
  );

  app.get('/api/env-settings', { config: admin, schema: { response: { 200: OkOf(EnvSettings) } } }, async (req) => {
    assertEnvironment(req.user, 'change');
    return ok(await svc.shownSettings());
  });

  app.post(
    '/api/env-settings',
    { config: admin, schema: { body: EnvSettings, response: { 200: OkOf(EnvSettings) } } },
    async (req) => {
      assertEnvironment(req.user, 'change');
      return ok(await svc.saveSettings(req.body));
    },
  );

  app.get(
    '/api/env-packages/search',
    {
      config: admin,
      schema: { querystring: PackageSearchQuery, response: { 200: OkOf(Type.Array(PackageSearchHit)) } },
    },
    async (req) => {
      assertEnvironment(req.user, 'change');
      const hits = await svc.search(req.query.target, req.query.q);
      return ok(hits, hits.length);
    },
  );
  nodeRoutes(app, ctx, svc);
};

/** What nodes call: their inventory, the jobs they claim, log and finish, and the index settings they build with. */
function nodeRoutes(app: TypedApp, ctx: AppContext, svc: EnvironmentsService): void {
  const { db } = ctx.store;
  app.post(
    '/api/node-api/environment',
    { config: node, schema: { body: NodeInventoryBody, response: { 200: Done } } },
    async (req) => {
      await svc.report(nodeId(req), req.body);
      return ok(null);
    },
  );

  app.post(
    '/api/node-api/env-jobs/claim',
    { config: node, schema: { response: { 200: OkOf(EnvClaim) } } },
    async (req) => {
      return ok(await svc.claim(nodeId(req)));
    },
  );

  // Before a task whose assignment names a save of the index settings the node has not read yet.
  app.post(
    '/api/node-api/env-settings',
    { config: node, schema: { response: { 200: OkOf(NodeEnvSettings) } } },
    async () => ok(await svc.forNode()),
  );

  app.post(
    '/api/node-api/env-jobs/:id/log',
    { config: node, schema: { params: IdParams, body: EnvJobLogBody, response: { 200: Done } } },
    async (req) => {
      const text = await svc.redact(req.body.lines.map((l) => l + '\n').join(''));
      if (text) await store.appendJobLog(db, req.params.id, nodeId(req), text, ctx.config.envJobTimeoutMs);
      return ok(null);
    },
  );

  app.post(
    '/api/node-api/env-jobs/:id/finish',
    { config: node, schema: { params: IdParams, body: EnvJobFinishBody, response: { 200: Done } } },
    async (req) => {
      const id = nodeId(req);
      if (req.body.inventory) await svc.report(id, req.body.inventory);
      await store.finishJob(db, req.params.id, id, req.body.ok, await svc.redact(req.body.error));
      return ok(null);
    },
  );
}

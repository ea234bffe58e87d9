import {
  CreateDataSourceBody,
  DataSourceChoicesEnvelope,
  DataSourceEnvelope,
  DataSourceListEnvelope,
  DataSourceTestEnvelope,
  IdParams,
  NullResponse,
  SpiderTargetBody,
  SpiderTargetEnvelope,
  TaskTargetEnvelope,
  TestDataSourceBody,
  UpdateDataSourceBody,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { assertDataSource, spiderFor, taskFor } from '../../policies/index.ts';
import {
  changeDataSource,
  createDataSource,
  dataSourceList,
  removeDataSource,
  testDataSource,
} from './datasources.service.ts';
import { recordTaskTarget } from './ingest.service.ts';
import { deleteTaskTarget } from './datasources.store.ts';
import { setSpiderTarget, spiderTarget, taskTarget } from './targets.service.ts';

const res = (schema: object) => ({ 200: schema });

/** Settings → Database: results data sources; a spider's target; where a task's items went. */
export const dataSourcesFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  // A task's target is recorded when it is created, so a later change of its spider's data source moves later tasks
  // only; a deleted task's record goes with it.
  const onStatus = (ev: { taskId: string; status: string; repeat?: boolean }) => {
    if (ev.repeat || (ev.status !== 'pending' && ev.status !== 'deleted')) return;
    const work = ev.status === 'pending' ? recordTaskTarget(ctx, ev.taskId) : deleteTaskTarget(db, ev.taskId);
    work.catch((err: unknown) => ctx.log.warn({ err, taskId: ev.taskId }, 'could not keep the task results target'));
  };
  ctx.events.on('task.status', onStatus);
  ctx.onClose(() => {
    ctx.events.off('task.status', onStatus);
  });

  app.get(
    '/api/data-sources',
    { config: { access: 'admin' }, schema: { response: res(DataSourceListEnvelope) } },
    async (req) => {
      assertDataSource(req.user, 'change');
      const list = await dataSourceList(ctx, true);
      return ok(list, list.length);
    },
  );

  app.get(
    '/api/data-sources-choices',
    { config: { access: 'user' }, schema: { response: res(DataSourceChoicesEnvelope) } },
    async (req) => {
      assertDataSource(req.user, 'read');
      const list = (await dataSourceList(ctx, true)).map((d) => ({ _id: d._id, name: d.name, type: d.type }));
      return ok(list, list.length);
    },
  );

  app.put(
    '/api/data-sources',
    { config: { access: 'admin' }, schema: { body: CreateDataSourceBody, response: res(DataSourceEnvelope) } },
    async (req) => {
      assertDataSource(req.user, 'change');
      return ok(await createDataSource(ctx, req.body));
    },
  );

  app.post(
    '/api/data-sources/:id',
    {
      config: { access: 'admin' },
      schema: { params: IdParams, body: UpdateDataSourceBody, response: res(DataSourceEnvelope) },
    },
    async (req) => {
      assertDataSource(req.user, 'change');
      return ok(await changeDataSource(ctx, req.params.id, req.body));
    },
  );

  app.delete(
    '/api/data-sources/:id',
    { config: { access: 'admin' }, schema: { params: IdParams, response: res(NullResponse) } },
    async (req) => {
      assertDataSource(req.user, 'change');
      await removeDataSource(ctx, req.params.id);
      return ok(null);
    },
  );

  app.post(
    '/api/data-sources-test',
    { config: { access: 'admin' }, schema: { body: TestDataSourceBody, response: res(DataSourceTestEnvelope) } },
    async (req) => {
      assertDataSource(req.user, 'change');
      return ok(await testDataSource(ctx, req.body));
    },
  );

  app.get(
    '/api/spiders/:id/data-source',
    { config: { access: 'user' }, schema: { params: IdParams, response: res(SpiderTargetEnvelope) } },
    async (req) => {
      const spider = await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await spiderTarget(ctx, spider));
    },
  );

  app.post(
    '/api/spiders/:id/data-source',
    {
      config: { access: 'user' },
      schema: { params: IdParams, body: SpiderTargetBody, response: res(SpiderTargetEnvelope) },
    },
    async (req) => {
      const spider = await spiderFor(db, req.user, req.params.id, 'change');
      return ok(await setSpiderTarget(ctx, spider, req.body));
    },
  );

  app.get(
    '/api/tasks/:id/data-source',
    { config: { access: 'user' }, schema: { params: IdParams, response: res(TaskTargetEnvelope) } },
    async (req) => {
      const task = await taskFor(db, req.user, req.params.id);
      return ok(await taskTarget(ctx, task.id));
    },
  );
};

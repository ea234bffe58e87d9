import { Type } from '@sinclair/typebox';
import { sql, type Kysely } from 'kysely';
import {
  DEFAULT_MAX_ERROR_LOG,
  IdsBody,
  LOG_PAGE_SIZE,
  LogQuery,
  RunSpidersBody,
  RunTaskBody,
  TASK_STATUSES,
  TaskListQuery,
  type DeployInfo,
  type LogLine,
  pageFields,
} from '@crawldeck/shared';
import { DeployListQuery, ResultsExportQuery, TaskStreamQuery } from '@crawldeck/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, Feature } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import type { AuthUser } from '../../http/auth.ts';
import { getRuntime, type LogEvent, type NodeHeartbeatEvent, type NodeStatusEvent, type TaskStatusEvent } from './runtime.ts';
import { createTasks, presentTask } from './tasks.service.ts';
import { resultsReader } from '../results/results.reader.ts';
import { resultsDownload } from '../results/results.export.ts';
import { escapeLike, getTask, type TaskRow } from './tasks.store.ts';
import { registerSpiderDeleteGuard, spiderFor } from '../spiders/spiders.service.ts';
import { getSpider, presentSpider } from '../spiders/spiders.store.ts';
import { assertTaskChange, canReadSpiderId, canSpider, deployReadFilter, taskFor, taskReadFilter } from '../../policies/index.ts';

// A spider whose task is pending or running cannot be deleted (its process would lose its files and rows).
registerSpiderDeleteGuard(async (db, spiderId) => {
  const t = await db.selectFrom('tasks').select('id').where('spider_id', '=', spiderId).where('status', 'in', ['pending', 'running']).limit(1).executeTakeFirst();
  return t ? 'a task of this spider is pending or running' : undefined;
});

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });
const PageQuery = Type.Object({ ...pageFields(100000) });

async function spiderNames(db: Kysely<DB>, ids: string[]): Promise<Map<string, string>> {
  const uniq = [...new Set(ids)];
  if (!uniq.length) return new Map();
  const rows = await db.selectFrom('spiders').select(['id', 'name']).where('id', 'in', uniq).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

async function nodeNames(db: Kysely<DB>, ids: string[]): Promise<Map<string, string>> {
  const uniq = [...new Set(ids)];
  if (!uniq.length) return new Map();
  const rows = await db.selectFrom('nodes').select(['id', 'name']).where('id', 'in', uniq).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function presentTasks(db: Kysely<DB>, rows: TaskRow[]) {
  const [spiders, nodes] = await Promise.all([spiderNames(db, rows.map((r) => r.spider_id)), nodeNames(db, rows.map((r) => r.node_id))]);
  return rows.map((r) => presentTask({ ...r, spider_name: spiders.get(r.spider_id) ?? '', node_name: nodes.get(r.node_id) ?? null }));
}


/** Opens a Server-Sent Events response and returns a writer; the caller registers cleanup on `close`. */
function openSse(req: FastifyRequest, reply: FastifyReply): { send(event: string, data: unknown): void; onClose(fn: () => void): void } {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.write('retry: 2000\n\n');
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  const closers: (() => void)[] = [() => clearInterval(ping)];
  req.raw.on('close', () => closers.forEach((fn) => fn()));
  return {
    send(event, data) {
      if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    onClose(fn) {
      closers.push(fn);
    },
  };
}

export async function deleteTasks(ctx: AppContext, user: AuthUser, ids: string[]): Promise<number> {
  const db = ctx.store.db;
  const rows = await db.selectFrom('tasks').selectAll().where('id', 'in', ids).execute();
  for (const t of rows) assertTaskChange(user, t);
  const rt = getRuntime(ctx);
  for (const t of rows) {
    if (t.status === 'running' || t.status === 'pending') rt.drop(t.id, t.node_id);
  }
  if (!rows.length) return 0;
  await db.deleteFrom('tasks').where('id', 'in', rows.map((r) => r.id)).execute();
  for (const t of rows) ctx.events.emit('task.status', { taskId: t.id, status: 'deleted', spiderId: t.spider_id, nodeId: t.node_id, scheduleId: t.schedule_id, parentId: t.parent_id, error: '' } satisfies TaskStatusEvent);
  return rows.length;
}

async function restartTask(ctx: AppContext, user: AuthUser, t: TaskRow): Promise<string[]> {
  assertTaskChange(user, t);
  return createTasks(ctx, {
    spiderId: t.spider_id,
    runType: t.run_type === 'random' ? 'random' : 'selected-nodes',
    nodeIds: t.run_type === 'random' ? [] : [t.node_id],
    param: t.param,
    scheduleId: t.schedule_id,
    ownerId: user.id,
  });
}

/** Tasks: run, list, detail, delete, cancel, restart, logs, results, CSV, live streams, deploys (issue 4). */
export const tasksFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const rt = getRuntime(ctx);

  app.put('/api/tasks', { config: { access: 'user' }, schema: { body: RunTaskBody } }, async (req) => {
    await spiderFor(db, req.user, req.body.spider_id, 'run');
    const ids = await createTasks(ctx, { spiderId: req.body.spider_id, runType: req.body.run_type, nodeIds: req.body.node_ids, param: req.body.param, ownerId: req.user.id });
    return ok(ids);
  });

  app.post('/api/spiders-run', { config: { access: 'user' }, schema: { body: RunSpidersBody } }, async (req) => {
    const ids: string[] = [];
    for (const p of req.body.task_params) await spiderFor(db, req.user, p.spider_id, 'run');
    for (const p of req.body.task_params) {
      ids.push(...(await createTasks(ctx, { spiderId: p.spider_id, runType: req.body.run_type, nodeIds: req.body.node_ids, param: p.param, ownerId: req.user.id })));
    }
    return ok(ids);
  });

  app.get('/api/tasks', { config: { access: 'user' }, schema: { querystring: TaskListQuery } }, async (req) => {
    const q = req.query;
    const { limit, offset } = paging(q, 10);
    let base = db.selectFrom('tasks').where(taskReadFilter(req.user));
    if (q.node_id) base = base.where('node_id', '=', q.node_id);
    if (q.spider_id) base = base.where('spider_id', '=', q.spider_id);
    if (q.status) {
      const statuses = q.status.split(',').filter((s) => (TASK_STATUSES as readonly string[]).includes(s));
      if (!statuses.length) throw badRequest(`status must be one of ${TASK_STATUSES.join(', ')}`);
      base = base.where('status', 'in', statuses);
    }
    if (q.schedule_id) base = base.where('schedule_id', '=', q.schedule_id);
    if (q.type) base = base.where('type', '=', q.type);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('create_ts', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return ok(await presentTasks(db, rows), Number(count.n));
  });

  app.delete('/api/tasks', { config: { access: 'user' }, schema: { body: IdsBody } }, async (req) => ok({ deleted: await deleteTasks(ctx, req.user, req.body.ids) }));

  app.get('/api/tasks/:id', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const t = await taskFor(db, req.user, req.params.id);
    const [task] = await presentTasks(db, [t]);
    const spider = t.type === 'spider' ? await getSpider(db, t.spider_id) : undefined;
    const node = t.node_id && !/^0+$/.test(t.node_id) ? await db.selectFrom('nodes').select(['id', 'name', 'type', 'status', 'ip']).where('id', '=', t.node_id).executeTakeFirst() : undefined;
    return ok({
      ...task,
      // The task's starter may no longer read its spider (made private since): then no spider details.
      spider: spider && canSpider(req.user, spider, 'read') ? presentSpider(spider) : null,
      node: node ? { _id: node.id, name: node.name, type: node.type, status: node.status, ip: node.ip } : null,
    });
  });

  app.delete('/api/tasks/:id', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    await taskFor(db, req.user, req.params.id);
    await deleteTasks(ctx, req.user, [req.params.id]);
    return ok(null);
  });

  app.post('/api/tasks/:id/cancel', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const t = await taskFor(db, req.user, req.params.id);
    assertTaskChange(req.user, t);
    await rt.cancel(t.id);
    return ok(presentTask((await getTask(db, t.id))!));
  });

  app.post('/api/tasks/:id/restart', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const t = await taskFor(db, req.user, req.params.id);
    return ok(await restartTask(ctx, req.user, t));
  });

  app.post('/api/tasks-cancel', { config: { access: 'user' }, schema: { body: IdsBody } }, async (req) => {
    const rows = await db.selectFrom('tasks').selectAll().where('id', 'in', req.body.ids).execute();
    for (const t of rows) assertTaskChange(req.user, t);
    let cancelled = 0;
    for (const t of rows) if (await rt.cancel(t.id)) cancelled++;
    return ok({ cancelled });
  });

  app.post('/api/tasks-restart', { config: { access: 'user' }, schema: { body: IdsBody } }, async (req) => {
    const rows = await db.selectFrom('tasks').selectAll().where('id', 'in', req.body.ids).execute();
    for (const t of rows) assertTaskChange(req.user, t);
    const ids: string[] = [];
    for (const t of rows) ids.push(...(await restartTask(ctx, req.user, t)));
    return ok(ids);
  });

  // ------------------------------------------------------------------------------------------------ logs

  app.get('/api/tasks/:id/log', { config: { access: 'user' }, schema: { params: IdParams, querystring: LogQuery } }, async (req) => {
    const t = await taskFor(db, req.user, req.params.id);
    const { limit, offset } = paging(req.query, LOG_PAGE_SIZE);
    const keyword = req.query.keyword?.trim();
    const toLine = (r: { line_no: number; msg: string; is_error: number }): LogLine => ({ _id: `${t.id}-${r.line_no}`, line_no: r.line_no, msg: r.msg, is_error: r.is_error === 1 });
    if (!keyword) {
      // Line numbers are dense from 1, so a page is a primary-key range, whatever the log size.
      const rows = await db
        .selectFrom('task_logs')
        .select(['line_no', 'msg', 'is_error'])
        .where('task_id', '=', t.id)
        .where('line_no', '>', offset)
        .where('line_no', '<=', offset + limit)
        .orderBy('line_no')
        .execute();
      return ok(rows.map(toLine), t.log_lines);
    }
    const pattern = `%${escapeLike(keyword)}%`;
    const cond = ctx.store.engine === 'postgres' ? sql<boolean>`msg ilike ${pattern}` : sql<boolean>`msg like ${pattern} escape '\\'`;
    const base = db.selectFrom('task_logs').where('task_id', '=', t.id).where(cond);
    const [rows, count] = await Promise.all([
      base.select(['line_no', 'msg', 'is_error']).orderBy('line_no').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return ok(rows.map(toLine), Number(count.n));
  });

  app.get('/api/tasks/:id/error-log', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const t = await taskFor(db, req.user, req.params.id);
    const user = await db.selectFrom('users').select('settings').where('id', '=', req.user.id).executeTakeFirst();
    let max = DEFAULT_MAX_ERROR_LOG;
    try {
      max = Number(JSON.parse(user?.settings || '{}').max_error_log) || DEFAULT_MAX_ERROR_LOG;
    } catch {
      /* default */
    }
    const rows = await db
      .selectFrom('task_logs')
      .select(['line_no', 'msg'])
      .where('task_id', '=', t.id)
      .where('is_error', '=', 1)
      .orderBy('line_no')
      .limit(max)
      .execute();
    return ok(rows.map((r) => ({ _id: `${t.id}-${r.line_no}`, line_no: r.line_no, msg: r.msg, is_error: true })), t.error_lines);
  });

  // ------------------------------------------------------------------------------------------------ results

  app.get('/api/tasks/:id/results', { config: { access: 'user' }, schema: { params: IdParams, querystring: PageQuery } }, async (req) => {
    const t = await taskFor(db, req.user, req.params.id);
    const { limit, offset } = paging(req.query, 10);
    const reader = await resultsReader(ctx, t.id);
    const [items, total] = await Promise.all([reader.page(limit, offset), reader.total()]);
    return ok(items.map((r) => ({ ...r.fields, _id: String(r.id), task_id: t.id })), total);
  });

  app.get('/api/tasks/:id/results/download', { config: { access: 'user' }, schema: { params: IdParams, querystring: ResultsExportQuery } }, async (req, reply) => {
    const t = await taskFor(db, req.user, req.params.id);
    const bom = req.query.bom === '1' || req.query.bom === 'true';
    const d = await resultsDownload(await resultsReader(ctx, t.id), req.query.format ?? 'csv', bom);
    return reply.header('content-type', d.contentType).header('content-disposition', `attachment; filename="${d.filename}"`).send(d.body);
  });

  // ------------------------------------------------------------------------------------------------ live updates

  // EventSource cannot set headers, so this one route also takes the token as `?token=`.
  app.get(
    '/api/tasks/:id/stream',
    { config: { access: 'user', queryToken: true }, schema: { params: IdParams, querystring: TaskStreamQuery } },
    async (req, reply) => {
      const t = await taskFor(db, req.user, req.params.id);
      const sse = openSse(req, reply);
      let lastSent = req.query.from ?? t.log_lines;
      let backlogDone = false;
      const buffered: LogEvent['lines'] = [];
      const onLog = (ev: LogEvent) => {
        if (ev.taskId !== t.id) return;
        if (!backlogDone) {
          buffered.push(...ev.lines);
          return;
        }
        const lines = ev.lines.filter((l) => l.line_no > lastSent);
        if (!lines.length) return;
        lastSent = lines[lines.length - 1].line_no;
        sse.send('log', lines);
      };
      const onStatus = (ev: TaskStatusEvent) => {
        if (ev.taskId !== t.id) return;
        void getTask(db, t.id).then(async (row) => row && sse.send('status', (await presentTasks(db, [row]))[0]));
      };
      ctx.events.on('task.log', onLog);
      ctx.events.on('task.status', onStatus);
      sse.onClose(() => {
        ctx.events.off('task.log', onLog);
        ctx.events.off('task.status', onStatus);
      });
      sse.send('status', (await presentTasks(db, [t]))[0]);
      // Backlog after `from`, in pages, then whatever arrived meanwhile.
      for (;;) {
        const rows = await db.selectFrom('task_logs').select(['line_no', 'msg', 'is_error']).where('task_id', '=', t.id).where('line_no', '>', lastSent).orderBy('line_no').limit(LOG_PAGE_SIZE).execute();
        if (!rows.length) break;
        sse.send('log', rows.map((r) => ({ line_no: r.line_no, msg: r.msg, is_error: r.is_error === 1 })));
        lastSent = rows[rows.length - 1].line_no;
      }
      backlogDone = true;
      const pending = buffered.filter((l) => l.line_no > lastSent);
      if (pending.length) {
        lastSent = pending[pending.length - 1].line_no;
        sse.send('log', pending);
      }
    },
  );

  app.get('/api/events', { config: { access: 'user' } }, async (req, reply) => {
    const sse = openSse(req, reply);
    // A normal user hears only of tasks of spiders the spider policy lets them read, as the task list shows them;
    // judged by spider so that deletions (whose rows are gone) still reach them. One look-up per spider.
    const user = req.user;
    const seen = new Map<string, boolean>();
    const canSee = async (spiderId: string): Promise<boolean> => {
      let yes = seen.get(spiderId);
      if (yes === undefined) {
        yes = await canReadSpiderId(db, user, spiderId);
        seen.set(spiderId, yes);
      }
      return yes;
    };
    const onStatus = (ev: TaskStatusEvent) => {
      canSee(ev.spiderId)
        .then((yes) => yes && sse.send('task.status', ev))
        .catch((err: unknown) => req.log.warn({ err }, 'task event filter failed'));
    };
    // Nodes are visible to every signed-in user (GET /api/nodes), so their events go to everyone.
    const onNodeStatus = (ev: NodeStatusEvent) => sse.send('node.status', ev);
    const onHeartbeat = (ev: NodeHeartbeatEvent) => sse.send('node.heartbeat', ev);
    ctx.events.on('task.status', onStatus);
    ctx.events.on('node.status', onNodeStatus);
    ctx.events.on('node.heartbeat', onHeartbeat);
    sse.onClose(() => {
      ctx.events.off('task.status', onStatus);
      ctx.events.off('node.status', onNodeStatus);
      ctx.events.off('node.heartbeat', onHeartbeat);
    });
  });

  // ------------------------------------------------------------------------------------------------ spider views

  app.get('/api/spiders/:id/tasks', { config: { access: 'user' }, schema: { params: IdParams, querystring: PageQuery } }, async (req) => {
    const { limit, offset } = paging(req.query, 10);
    const base = db.selectFrom('tasks').where('spider_id', '=', req.params.id).where(taskReadFilter(req.user));
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('create_ts', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return ok(await presentTasks(db, rows), Number(count.n));
  });

  app.get('/api/deploys', { config: { access: 'user' }, schema: { querystring: DeployListQuery } }, async (req) => {
    const { limit, offset } = paging(req.query, 10);
    let base = db.selectFrom('deploys').where(deployReadFilter(req.user));
    if (req.query.spider_id) base = base.where('spider_id', '=', req.query.spider_id);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('finish_ts', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const names = await nodeNames(db, rows.map((r) => r.node_id));
    const data: (DeployInfo & { node_name: string })[] = rows.map((r) => ({
      _id: r.id,
      spider_id: r.spider_id,
      node_id: r.node_id,
      node_name: names.get(r.node_id) ?? '',
      task_id: r.task_id,
      files_total: r.files_total,
      files_changed: r.files_changed,
      bytes: Number(r.bytes),
      error: r.error,
      create_ts: iso(r.create_ts),
      finish_ts: iso(r.finish_ts),
    }));
    return ok(data, Number(count.n));
  });
};

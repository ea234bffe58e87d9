import {
  EventStreamQuery,
  DEFAULT_MAX_ERROR_LOG,
  DeletedResponse,
  CancelledResponse,
  IdsBody,
  LIST_COUNT_CAP,
  LOG_PAGE_SIZE,
  LogLineListResponse,
  LogPageResponse,
  LogQuery,
  NullResponse,
  ResultsExportQuery,
  RunSpidersBody,
  RunTaskBody,
  TASK_STATUSES,
  TaskDetailResponse,
  TaskIdsResponse,
  TaskListQuery,
  TaskListResponse,
  TaskPageQuery,
  TaskPriorityBody,
  TaskResponse,
  TaskResultListResponse,
  TaskStreamQuery,
  EventStreamResponse,
  CsvResponse,
  IdParams,
  type LogLine,
  type TaskDetail,
} from '@crawldeck/shared';
import type { AppContext, Feature, TypedApp } from '../../context.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ok, paging } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import { canSpider, nodeFor, taskFor } from '../../policies/index.ts';
import { findUserById } from '../users/users.store.ts';
import { registerSpiderDeleteGuard, spiderFor } from '../spiders/spiders.service.ts';
import { getSpider, presentSpider } from '../spiders/spiders.store.ts';
import { resultsReader } from '../results/results.reader.ts';
import { resultsBasename, resultsDownload } from '../results/results.export.ts';
import { attachmentDisposition } from '../../http/attachment.ts';
import { scrapedItemCount } from '../scrapy-stats/scrapy-stats.service.ts';
import {
  changePriority,
  createTasks,
  deleteTasks,
  presentTask,
  presentTasks,
  keysetAnswer,
  listStart,
  readableTasks,
  restartTask,
  type KeysetAnswer,
  tasksToChange,
} from './tasks.service.ts';
import { openSse, streamEvents, streamTask } from './tasks.stream.ts';
import { createLogSearch, type LogSearch } from './log-search.ts';
import { attemptsOfTask } from './attempts.ts';
import {
  errorLines,
  getTask,
  logLinesAfter,
  nodeSummary,
  spiderHasLiveTask,
  type TaskListFilter,
  type TaskRow,
} from './tasks.store.ts';

// A spider whose task is pending or running cannot be deleted (its process would lose its files and rows).
registerSpiderDeleteGuard(async (db, spiderId) =>
  (await spiderHasLiveTask(db, spiderId)) ? 'a task of this spider is pending or running' : undefined,
);

const toLogLine = (taskId: string, r: { line_no: number; msg: string; is_error: number }): LogLine => ({
  _id: `${taskId}-${r.line_no}`,
  line_no: r.line_no,
  msg: r.msg,
  is_error: r.is_error === 1,
});

function listFilter(q: TaskListQuery): TaskListFilter {
  const f: TaskListFilter = {
    node_id: q.node_id,
    spider_id: q.spider_id,
    schedule_id: q.schedule_id,
    type: q.type,
    priority: q.priority,
  };
  if (q.status) {
    f.statuses = q.status.split(',').filter((s) => (TASK_STATUSES as readonly string[]).includes(s));
    if (!f.statuses.length) throw badRequest(`status must be one of ${TASK_STATUSES.join(', ')}`);
  }
  return f;
}

/** A page of the tasks the caller may read, as the task list shows them. */
async function taskPage(ctx: AppContext, user: AuthUser, f: TaskListFilter, q: TaskPageQuery) {
  return okKeyset(await readableTasks(ctx, user, f, { ...paging(q, 10), cursor: q.cursor }));
}

/** The list envelope with the cursors of the pages around this one. */
function okKeyset<T>({ list, total, ...around }: KeysetAnswer<T>) {
  return { ...ok(list, total), ...around };
}

async function taskDetail(ctx: AppContext, user: AuthUser, t: TaskRow): Promise<TaskDetail> {
  const db = ctx.store.db;
  const [task] = await presentTasks(db, [t]);
  const spider = t.type === 'spider' ? await getSpider(db, t.spider_id) : undefined;
  const node = t.node_id && !/^0+$/.test(t.node_id) ? await nodeSummary(db, t.node_id) : undefined;
  return {
    ...task,
    // The task's starter may no longer read its spider (made private since): then no spider details.
    spider: spider && canSpider(user, spider, 'read') ? presentSpider(spider) : null,
    node: node ? { _id: node.id, name: node.name, type: node.type, status: node.status, ip: node.ip } : null,
    ...(await scrapyItemsMismatch(ctx, t)),
    ...(await attemptsOfTask(db, t)),
  };
}

/**
 * An ended Scrapy task whose stats say it scraped another number of items than were stored (e.g. run from a
 * folder where the item pipeline was not set up): the two counts, for the task page to say so.
 */
async function scrapyItemsMismatch(ctx: AppContext, t: TaskRow): Promise<Pick<TaskDetail, 'scrapy_items_mismatch'>> {
  if (t.status === 'pending' || t.status === 'running') return {};
  const scraped = await scrapedItemCount(ctx, t.id);
  if (scraped == null || scraped === t.result_count) return {};
  return { scrapy_items_mismatch: { scraped, stored: t.result_count } };
}

async function runSpiders(ctx: AppContext, user: AuthUser, body: RunSpidersBody): Promise<string[]> {
  for (const p of body.task_params) await spiderFor(ctx.store.db, user, p.spider_id, 'run');
  const ids: string[] = [];
  for (const p of body.task_params) {
    ids.push(
      ...(await createTasks(ctx, {
        spiderId: p.spider_id,
        runType: body.run_type,
        nodeIds: body.node_ids,
        param: p.param,
        priority: p.priority,
        timeoutSeconds: p.timeout,
        retries: p.retries,
        ownerId: user.id,
      })),
    );
  }
  return ids;
}

async function logPage(ctx: AppContext, logSearch: LogSearch, t: TaskRow, q: LogQuery) {
  const page = paging(q, LOG_PAGE_SIZE);
  const keyword = q.keyword?.trim();
  if (!keyword) {
    // Whoever reads a log may search it next: the search worker starts now rather than on the first search.
    logSearch.warm();
    const lines = await logLinesAfter(ctx.store.db, t.id, page.offset, page.limit);
    return ok(
      lines.map((r) => toLogLine(t.id, r)),
      t.log_lines,
    );
  }
  const found = await logSearch.search(t, keyword, page);
  return {
    ...ok(
      found.rows.map((r) => toLogLine(t.id, r)),
      found.total,
    ),
    total_partial: found.partial,
  };
}

/** The first error lines of a task, as many as the caller's "max error log" setting allows. */
async function errorLog(ctx: AppContext, user: AuthUser, t: TaskRow) {
  const row = await findUserById(ctx.store.db, user.id);
  let max = DEFAULT_MAX_ERROR_LOG;
  try {
    max = Number(JSON.parse(row?.settings || '{}').max_error_log) || DEFAULT_MAX_ERROR_LOG;
  } catch {
    /* default */
  }
  const rows = await errorLines(ctx.store.db, t.id, max);
  return ok(
    rows.map((r) => toLogLine(t.id, { ...r, is_error: 1 })),
    t.error_lines,
  );
}

async function resultPage(ctx: AppContext, t: TaskRow, q: TaskPageQuery) {
  const req = { ...paging(q, 10), cursor: q.cursor };
  const reader = await resultsReader(ctx, t.id);
  const [page, count] = await Promise.all([
    reader.list(listStart(req, ['int']), req.limit),
    reader.total(LIST_COUNT_CAP),
  ]);
  const items = page.rows.map((r) => ({ ...r.fields, _id: String(r.id), task_id: t.id }));
  const answer = keysetAnswer(items, { ...page, ...count });
  return okKeyset(reader.backward ? answer : { ...answer, last: null });
}

async function cancelTasks(ctx: AppContext, user: AuthUser, ids: string[]): Promise<number> {
  const rt = ctx.execution;
  let cancelled = 0;
  for (const t of await tasksToChange(ctx.store.db, user, ids)) if (await rt.cancel(t.id)) cancelled++;
  return cancelled;
}

async function restartTasks(ctx: AppContext, user: AuthUser, ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const t of await tasksToChange(ctx.store.db, user, ids)) out.push(...(await restartTask(ctx, user, t)));
  return out;
}

/** Starting tasks: run one spider or several, run a task again. */
function runRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  app.put(
    '/api/tasks',
    { config: user, schema: { body: RunTaskBody, response: { 200: TaskIdsResponse } } },
    async (req) => {
      await spiderFor(db, req.user, req.body.spider_id, 'run');
      const b = req.body;
      return ok(
        await createTasks(ctx, {
          spiderId: b.spider_id,
          runType: b.run_type,
          nodeIds: b.node_ids,
          param: b.param,
          priority: b.priority,
          timeoutSeconds: b.timeout,
          retries: b.retries,
          ownerId: req.user.id,
        }),
      );
    },
  );
  app.post(
    '/api/spiders-run',
    { config: user, schema: { body: RunSpidersBody, response: { 200: TaskIdsResponse } } },
    async (req) => ok(await runSpiders(ctx, req.user, req.body)),
  );
  app.post(
    '/api/tasks/:id/restart',
    { config: user, schema: { params: IdParams, response: { 200: TaskIdsResponse } } },
    async (req) => ok(await restartTask(ctx, req.user, await taskFor(db, req.user, req.params.id))),
  );
  app.post(
    '/api/tasks-restart',
    { config: user, schema: { body: IdsBody, response: { 200: TaskIdsResponse } } },
    async (req) => ok(await restartTasks(ctx, req.user, req.body.ids)),
  );
}

/** Lists, detail, cancel and delete. */
function manageRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  app.get(
    '/api/tasks',
    { config: user, schema: { querystring: TaskListQuery, response: { 200: TaskListResponse } } },
    async (req) => taskPage(ctx, req.user, listFilter(req.query), req.query),
  );
  app.get(
    '/api/spiders/:id/tasks',
    { config: user, schema: { params: IdParams, querystring: TaskPageQuery, response: { 200: TaskListResponse } } },
    async (req) => taskPage(ctx, req.user, { spider_id: req.params.id }, req.query),
  );
  app.get(
    '/api/nodes/:id/tasks',
    { config: user, schema: { params: IdParams, querystring: TaskPageQuery, response: { 200: TaskListResponse } } },
    async (req) => {
      await nodeFor(db, req.user, req.params.id, 'read');
      return taskPage(ctx, req.user, { node_id: req.params.id }, req.query);
    },
  );
  app.get(
    '/api/tasks/:id',
    { config: user, schema: { params: IdParams, response: { 200: TaskDetailResponse } } },
    async (req) => ok(await taskDetail(ctx, req.user, await taskFor(db, req.user, req.params.id))),
  );
  app.delete(
    '/api/tasks',
    { config: user, schema: { body: IdsBody, response: { 200: DeletedResponse } } },
    async (req) => ok({ deleted: await deleteTasks(ctx, req.user, req.body.ids) }),
  );
  app.delete(
    '/api/tasks/:id',
    { config: user, schema: { params: IdParams, response: { 200: NullResponse } } },
    async (req) => {
      await taskFor(db, req.user, req.params.id);
      await deleteTasks(ctx, req.user, [req.params.id]);
      return ok(null);
    },
  );
  app.post(
    '/api/tasks/:id/cancel',
    { config: user, schema: { params: IdParams, response: { 200: TaskResponse } } },
    async (req) => {
      const t = await taskFor(db, req.user, req.params.id, 'change');
      await ctx.execution.cancel(t.id);
      return ok(presentTask((await getTask(db, t.id))!));
    },
  );
  app.post(
    '/api/tasks/:id/priority',
    { config: user, schema: { params: IdParams, body: TaskPriorityBody, response: { 200: TaskResponse } } },
    async (req) => {
      const t = await taskFor(db, req.user, req.params.id, 'change');
      await changePriority(ctx, req.user, t, req.body.priority);
      return ok(presentTask((await getTask(db, t.id))!));
    },
  );
  app.post(
    '/api/tasks-cancel',
    { config: user, schema: { body: IdsBody, response: { 200: CancelledResponse } } },
    async (req) => ok({ cancelled: await cancelTasks(ctx, req.user, req.body.ids) }),
  );
}

/** What a task printed and yielded: log pages, error lines, items, the items as CSV. */
function outputRoutes(app: TypedApp, ctx: AppContext, logSearch: LogSearch): void {
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  app.get(
    '/api/tasks/:id/log',
    { config: user, schema: { params: IdParams, querystring: LogQuery, response: { 200: LogPageResponse } } },
    async (req) => logPage(ctx, logSearch, await taskFor(db, req.user, req.params.id), req.query),
  );
  app.get(
    '/api/tasks/:id/error-log',
    { config: user, schema: { params: IdParams, response: { 200: LogLineListResponse } } },
    async (req) => errorLog(ctx, req.user, await taskFor(db, req.user, req.params.id)),
  );
  app.get(
    '/api/tasks/:id/results',
    {
      config: user,
      schema: { params: IdParams, querystring: TaskPageQuery, response: { 200: TaskResultListResponse } },
    },
    async (req) => resultPage(ctx, await taskFor(db, req.user, req.params.id), req.query),
  );
  app.get(
    '/api/tasks/:id/results/download',
    { config: user, schema: { params: IdParams, querystring: ResultsExportQuery, response: { 200: CsvResponse } } },
    async (req, reply) => {
      const t = await taskFor(db, req.user, req.params.id);
      const bom = req.query.bom === '1' || req.query.bom === 'true';
      const neutralise = req.query.neutralise !== '0';
      const name = resultsBasename((await getSpider(db, t.spider_id))?.name, t.id);
      const format = req.query.format ?? 'csv';
      const d = await resultsDownload(await resultsReader(ctx, t.id), format, { bom, neutralise }, name);
      return reply
        .header('content-type', d.contentType)
        .header('content-disposition', attachmentDisposition(d.filename))
        .send(d.body);
    },
  );
}

/** Live views: one task's status and log, and the console's feed of task and node events. */
function streamRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  // EventSource cannot set headers, so this one route also takes the token as `?token=`.
  const streamConfig = { access: 'user', queryToken: true } as const;
  app.get(
    '/api/tasks/:id/stream',
    {
      config: streamConfig,
      schema: { params: IdParams, querystring: TaskStreamQuery, response: { 200: EventStreamResponse } },
    },
    async (req, reply) => {
      const t = await taskFor(db, req.user, req.params.id);
      await streamTask(ctx, t, req.query.from, openSse(req, reply));
    },
  );
  app.get(
    '/api/events',
    { config: user, schema: { querystring: EventStreamQuery, response: { 200: EventStreamResponse } } },
    async (req, reply) => {
      const watched = new Set(req.query.nodes ? req.query.nodes.split(',') : []);
      const sse = openSse(req, reply);
      streamEvents(ctx, req.user, watched, sse, (err) => req.log.warn({ err }, 'task event filter failed'));
    },
  );
}

/** Tasks: run, list, detail, delete, cancel, restart, logs, results, CSV and the live streams. */
export const tasksFeature: Feature = (app, ctx) => {
  runRoutes(app, ctx);
  manageRoutes(app, ctx);
  outputRoutes(app, ctx, createLogSearch(ctx));
  streamRoutes(app, ctx);
};

import {
  CronCheckQuery,
  RETRY_MAX,
  CronCheckResponse,
  IdParams,
  NullResponse,
  ScheduleFireListResponse,
  ScheduleListQuery,
  ScheduleListResponse,
  ScheduleMetaResponse,
  SchedulePageQuery,
  ScheduleResponse,
  ScheduleRunResponse,
  ScheduleBody,
  ScheduleUpdateBody,
  TaskListResponse,
  nextCronRuns,
  validateCron,
} from '@crawldeck/shared';
import type { AppContext, Feature, TypedApp } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import { scheduleFor, scheduleReadFilter } from '../../policies/index.ts';
import { scheduleConfigOf, type ScheduleConfig } from './schedules.config.ts';
import {
  createSchedule,
  deleteScheduleOf,
  editSchedule,
  presentStored,
  setEnabled,
  type Schedules,
} from './schedules.service.ts';
import {
  listFires,
  listSchedules,
  presentFire,
  presentSchedule,
  schedulesOfSpider,
  stopSchedulesOfSpider,
} from './schedules.store.ts';
import { Scheduler, runFire } from './scheduler.ts';
import { SchedulerLeader, notifyScheduleChanged } from './leader.ts';
import { retryInOrder } from './retries.ts';
import { readableTasks } from './tasks-port.ts';

/** Per app: lets tests and other features reach the scheduler of a master. */
const schedulers = new WeakMap<AppContext, { scheduler: Scheduler; leader: SchedulerLeader }>();
export function schedulerOf(ctx: AppContext) {
  return schedulers.get(ctx);
}

/** Listeners of other features' events: automatic retries, schedules of deleted spiders, fires that failed. */
function listen(s: Schedules): void {
  const { ctx, scheduler } = s;
  // Automatic retries: off the status path, in the order the endings were heard, errors only logged.
  ctx.events.on('task.status', retryInOrder(ctx));
  // A fire that found no spider/node set status error: the leader drops its timer (already done in runFire).
  ctx.events.on('schedule.changed', ({ scheduleId }) => void scheduler.reload(scheduleId).catch(() => undefined));
  // Spider deleted: its schedules stop with 'Not Found Spider' at once.
  ctx.events.on('spider.deleted', (spiderId) => {
    void (async () => {
      for (const id of await stopSchedulesOfSpider(ctx.store.db, spiderId)) await s.changed(id);
    })().catch((err) => ctx.log.error({ err, spiderId }, 'marking schedules of a deleted spider failed'));
  });
}

/** Run now: one fire of kind manual on this master (recorded like any fire), whatever the enabled state. */
async function runNow(s: Schedules, id: string) {
  let ts = Date.now();
  for (let i = 0; i < 5; i++, ts++) {
    const r = await runFire(s.ctx, id, ts, 'manual', s.scheduler.instance, (sid) => void s.scheduler.reload(sid));
    if (r.error === 'already fired') continue;
    if (!r.fired) throw badRequest(r.error);
    if (r.error) {
      await s.changed(id);
      throw badRequest(r.error);
    }
    return { task_ids: r.taskIds, fire_ts: iso(ts) };
  }
  throw badRequest('could not record the run; try again');
}

function cronCheck(cfg: ScheduleConfig, q: CronCheckQuery) {
  const tz = q.timezone || cfg.defaultTimezone;
  const error = validateCron(q.cron, tz);
  const next = error ? [] : nextCronRuns(q.cron, q.n ?? 5, tz).map((d) => d.toISOString());
  return { valid: !error, error: error ?? '', timezone: tz, next };
}

/** Reading: the lists, one schedule, the scheduler settings, a cron check, a schedule's tasks and fires. */
function scheduleReadRoutes(app: TypedApp, s: Schedules): void {
  const { ctx, cfg } = s;
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  app.get(
    '/api/schedules',
    { config: user, schema: { querystring: ScheduleListQuery, response: { 200: ScheduleListResponse } } },
    async (req) => {
      const { rows, total } = await listSchedules(
        db,
        scheduleReadFilter(req.user),
        req.query,
        paging(req.query, 99999999),
      );
      return ok(rows.map(presentSchedule), total);
    },
  );
  app.get('/api/schedules/meta', { config: user, schema: { response: { 200: ScheduleMetaResponse } } }, async () =>
    ok({
      default_timezone: cfg.defaultTimezone,
      grace_seconds: cfg.graceMs / 1000,
      retry_max: RETRY_MAX,
      leader: s.isLeader(),
    }),
  );
  /** Cron check for scripts and the CLI: validity, message and the next run times. */
  app.get(
    '/api/schedules/cron',
    { config: user, schema: { querystring: CronCheckQuery, response: { 200: CronCheckResponse } } },
    async (req) => ok(cronCheck(cfg, req.query)),
  );
  app.get(
    '/api/schedules/:id',
    { config: user, schema: { params: IdParams, response: { 200: ScheduleResponse } } },
    async (req) => ok(presentSchedule(await scheduleFor(db, req.user, req.params.id, 'read'))),
  );
  /** The schedule's own task history (also available as GET /tasks?schedule_id=). */
  app.get(
    '/api/schedules/:id/tasks',
    { config: user, schema: { params: IdParams, querystring: SchedulePageQuery, response: { 200: TaskListResponse } } },
    async (req) => {
      await scheduleFor(db, req.user, req.params.id, 'read');
      const { list, total } = await readableTasks(ctx, req.user, { schedule_id: req.params.id }, paging(req.query, 10));
      return ok(list, total);
    },
  );
  /** Fire history: when it fired, which tasks it made, or why it made none. */
  app.get(
    '/api/schedules/:id/fires',
    {
      config: user,
      schema: { params: IdParams, querystring: SchedulePageQuery, response: { 200: ScheduleFireListResponse } },
    },
    async (req) => {
      await scheduleFor(db, req.user, req.params.id, 'read');
      const { rows, total } = await listFires(db, req.params.id, paging(req.query, 20));
      return ok(rows.map(presentFire), total);
    },
  );
  app.get(
    '/api/spiders/:id/schedules',
    { config: user, schema: { params: IdParams, response: { 200: ScheduleListResponse } } },
    async (req) => {
      const rows = await schedulesOfSpider(db, scheduleReadFilter(req.user), req.params.id);
      return ok(rows.map(presentSchedule), rows.length);
    },
  );
}

/** Creating, changing, enabling or disabling, deleting and running a schedule now. */
function scheduleWriteRoutes(app: TypedApp, s: Schedules): void {
  const { ctx } = s;
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  app.put(
    '/api/schedules',
    { config: user, schema: { body: ScheduleBody, response: { 200: ScheduleResponse } } },
    async (req) => ok(await presentStored(s, await createSchedule(s, req.user, req.body))),
  );
  app.post(
    '/api/schedules/:id',
    { config: user, schema: { params: IdParams, body: ScheduleUpdateBody, response: { 200: ScheduleResponse } } },
    async (req) => {
      const cur = await scheduleFor(db, req.user, req.params.id, 'change');
      await editSchedule(s, req.user, cur, req.body);
      return ok(await presentStored(s, cur.id));
    },
  );
  app.delete(
    '/api/schedules/:id',
    { config: user, schema: { params: IdParams, response: { 200: NullResponse } } },
    async (req) => {
      const cur = await scheduleFor(
        db,
        req.user,
        req.params.id,
        'change',
        'forbidden: only the owner or an administrator may delete this schedule',
      );
      await deleteScheduleOf(s, cur.id);
      return ok(null);
    },
  );
  for (const action of ['enable', 'disable'] as const) {
    app.post(
      `/api/schedules/:id/${action}`,
      { config: user, schema: { params: IdParams, response: { 200: ScheduleResponse } } },
      async (req) => {
        const cur = await scheduleFor(db, req.user, req.params.id, 'change');
        await setEnabled(s, cur, action === 'enable');
        return ok(await presentStored(s, cur.id));
      },
    );
  }
  app.post(
    '/api/schedules/:id/run',
    { config: user, schema: { params: IdParams, response: { 200: ScheduleRunResponse } } },
    async (req) => {
      const cur = await scheduleFor(db, req.user, req.params.id, 'run');
      return ok(await runNow(s, cur.id));
    },
  );
}

/** Schedules (with the spider's list of them), the scheduler and automatic retries. */
export const schedulesFeature: Feature = (app, ctx) => {
  const cfg = scheduleConfigOf(ctx.config);
  const scheduler = new Scheduler(ctx, cfg);
  const leader = new SchedulerLeader(ctx, scheduler, cfg.lockRetryMs);
  schedulers.set(ctx, { scheduler, leader });
  const s: Schedules = {
    ctx,
    cfg,
    scheduler,
    isLeader: () => leader.isLeader,
    async changed(id) {
      await scheduler.reload(id).catch((err) => ctx.log.error({ err }, 'schedule reload failed'));
      await notifyScheduleChanged(ctx, id).catch((err) => ctx.log.error({ err }, 'schedule notify failed'));
    },
  };
  if (cfg.schedulerEnabled) app.addHook('onReady', () => leader.start());
  ctx.onClose(() => leader.close());
  listen(s);

  scheduleReadRoutes(app, s);
  scheduleWriteRoutes(app, s);
};

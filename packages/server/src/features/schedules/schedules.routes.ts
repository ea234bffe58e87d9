import { Type } from '@sinclair/typebox';
import {
  CronCheckQuery,
  RETRY_MAX,
  SCHEDULE_ERRORS,
  ScheduleBody,
  ScheduleListQuery,
  ScheduleUpdateBody,
  isValidTimezone,
  newId,
  nextCronRuns,
  validateCron,
  type RunType,
  pageFields,
} from '@crawldeck/shared';
import type { AppContext, Feature } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import type { AuthUser } from '../../http/auth.ts';
import { loadScheduleConfig } from './schedules.config.ts';
import { getSchedule, presentFire, presentSchedule, schedulesWithSpider, type ScheduleRow } from './schedules.store.ts';
import { Scheduler, nextFireTs, runFire } from './scheduler.ts';
import { SchedulerLeader, notifyScheduleChanged } from './leader.ts';
import { retryIfNeeded } from './retries.ts';
import { checkSpiderAccess } from './tasks-port.ts';
import { scheduleFor, scheduleReadFilter, taskReadFilter } from '../../policies/index.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });

/** Per app: lets tests and other features reach the scheduler of a master. */
const schedulers = new WeakMap<AppContext, { scheduler: Scheduler; leader: SchedulerLeader }>();
export function schedulerOf(ctx: AppContext) {
  return schedulers.get(ctx);
}

/** Schedules (spec §7 "Schedules", GET /spiders/{id}/schedules), the scheduler and automatic retries. */
export const schedulesFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const cfg = loadScheduleConfig();
  const scheduler = new Scheduler(ctx, cfg);
  const leader = new SchedulerLeader(ctx, scheduler, cfg.lockRetryMs);
  schedulers.set(ctx, { scheduler, leader });

  if (cfg.schedulerEnabled) {
    app.addHook('onReady', async () => {
      await leader.start();
    });
  }
  ctx.onClose(() => leader.close());

  // Automatic retries: off the status path, errors only logged.
  ctx.events.on('task.status', (ev: { taskId: string; status: string }) => {
    void retryIfNeeded(ctx, ev).catch((err) => ctx.log.error({ err, taskId: ev.taskId }, 'task retry failed'));
  });
  // A fire that found no spider/node set status error: the leader drops its timer (already done in runFire).
  ctx.events.on(
    'schedule.changed',
    ({ scheduleId }: { scheduleId: string }) => void scheduler.reload(scheduleId).catch(() => undefined),
  );

  // Spider deleted (spiders feature): its schedules stop with 'Not Found Spider' at once.
  ctx.events.on('spider.deleted', (spiderId: string) => {
    void (async () => {
      const rows = await db.selectFrom('schedules').select('id').where('spider_id', '=', spiderId).execute();
      if (!rows.length) return;
      await db
        .updateTable('schedules')
        .set({ status: 'error', error: SCHEDULE_ERRORS.notFoundSpider, next_run_ts: null, update_ts: Date.now() })
        .where('spider_id', '=', spiderId)
        .execute();
      for (const r of rows) await changed(r.id);
    })().catch((err) => ctx.log.error({ err, spiderId }, 'marking schedules of a deleted spider failed'));
  });

  async function changed(id: string): Promise<void> {
    await scheduler.reload(id).catch((err) => ctx.log.error({ err }, 'schedule reload failed'));
    await notifyScheduleChanged(ctx, id).catch((err) => ctx.log.error({ err }, 'schedule notify failed'));
  }

  async function load(id: string) {
    const row = await getSchedule(db, id);
    if (!row) throw notFound('schedule');
    return row;
  }

  /** Validates a full set of schedule fields; throws a 400 with a clear message. */
  async function check(
    user: AuthUser,
    s: { cron: string; timezone: string; spider_id: string; run_type: string; node_ids: string[]; retries: number },
    spiderChanged: boolean,
  ) {
    if (!isValidTimezone(s.timezone)) throw badRequest(`Unknown time zone "${s.timezone}"`);
    const err = validateCron(s.cron, s.timezone);
    if (err) throw badRequest(err);
    if (s.retries < 0 || s.retries > RETRY_MAX) throw badRequest(`retries must be between 0 and ${RETRY_MAX}`);
    if (s.run_type === 'selected-nodes' && !s.node_ids.length)
      throw badRequest('Select at least one node for the run type "selected-nodes"');
    if (spiderChanged) await checkSpiderAccess(ctx, user, s.spider_id);
  }

  app.get('/api/schedules', { config: { access: 'user' }, schema: { querystring: ScheduleListQuery } }, async (req) => {
    const { limit, offset } = paging(req.query, 99999999);
    let q = schedulesWithSpider(db, scheduleReadFilter(req.user));
    let c = db.selectFrom('schedules').where(scheduleReadFilter(req.user));
    if (req.query.spider_id) {
      q = q.where('schedules.spider_id', '=', req.query.spider_id);
      c = c.where('schedules.spider_id', '=', req.query.spider_id);
    }
    if (req.query.keyword) {
      const kw = `%${req.query.keyword.toLowerCase()}%`;
      q = q.where((eb) => eb(eb.fn('lower', ['schedules.name']), 'like', kw));
      c = c.where((eb) => eb(eb.fn('lower', ['schedules.name']), 'like', kw));
    }
    const [rows, count] = await Promise.all([
      q.orderBy('schedules.create_ts', 'desc').orderBy('schedules.id', 'desc').limit(limit).offset(offset).execute(),
      c.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    ]);
    return ok(rows.map(presentSchedule), Number(count?.n ?? 0));
  });

  app.get('/api/schedules/meta', { config: { access: 'user' } }, async () =>
    ok({
      default_timezone: cfg.defaultTimezone,
      grace_seconds: cfg.graceMs / 1000,
      retry_max: RETRY_MAX,
      leader: leader.isLeader,
    }),
  );

  /** Cron check for scripts and the CLI: validity, message and the next run times. */
  app.get('/api/schedules/cron', { config: { access: 'user' }, schema: { querystring: CronCheckQuery } }, async (req) => {
    const tz = req.query.timezone || cfg.defaultTimezone;
    const error = validateCron(req.query.cron, tz);
    return ok({
      valid: !error,
      error: error ?? '',
      timezone: tz,
      next: error ? [] : nextCronRuns(req.query.cron, req.query.n ?? 5, tz).map((d) => d.toISOString()),
    });
  });

  app.get('/api/schedules/:id', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) =>
    ok(presentSchedule(await scheduleFor(db, req.user, req.params.id, 'read'))),
  );

  app.put('/api/schedules', { config: { access: 'user' }, schema: { body: ScheduleBody } }, async (req) => {
    const b = req.body;
    const s = {
      cron: b.cron.trim().split(/\s+/).join(' '),
      timezone: b.timezone?.trim() || cfg.defaultTimezone,
      spider_id: b.spider_id,
      run_type: (b.run_type ?? 'random') as RunType,
      node_ids: [...new Set(b.node_ids ?? [])],
      retries: b.retries ?? 0,
    };
    await check(req.user, s, true);
    const now = Date.now();
    const enabled = b.enabled !== false;
    const row: ScheduleRow = {
      id: newId(now),
      name: b.name.trim(),
      description: b.description ?? '',
      cron: s.cron,
      spider_id: s.spider_id,
      run_type: s.run_type,
      node_ids: JSON.stringify(s.run_type === 'selected-nodes' ? s.node_ids : []),
      param: b.param ?? '',
      enabled: enabled ? 1 : 0,
      status: enabled ? 'running' : 'stop',
      error: '',
      retries: s.retries,
      timezone: s.timezone,
      next_run_ts: enabled ? nextFireTs(s, now) : null,
      last_run_ts: null,
      active_since_ts: now,
      owner_id: req.user.id,
      create_ts: now,
      update_ts: now,
    };
    if (!row.name) throw badRequest('A schedule name is required');
    await db.insertInto('schedules').values(row).execute();
    await changed(row.id);
    return ok(presentSchedule(await load(row.id)));
  });

  app.post('/api/schedules/:id', { config: { access: 'user' }, schema: { params: IdParams, body: ScheduleUpdateBody } }, async (req) => {
    const cur = await scheduleFor(db, req.user, req.params.id, 'change');
    const b = req.body;
    const s = {
      cron: b.cron !== undefined ? b.cron.trim().split(/\s+/).join(' ') : cur.cron,
      timezone: b.timezone !== undefined ? b.timezone.trim() || cfg.defaultTimezone : cur.timezone,
      spider_id: b.spider_id ?? cur.spider_id,
      run_type: (b.run_type ?? cur.run_type) as RunType,
      node_ids: b.node_ids !== undefined ? [...new Set(b.node_ids)] : JSON.parse(cur.node_ids),
      retries: b.retries ?? cur.retries,
    };
    await check(req.user, s, b.spider_id !== undefined && b.spider_id !== cur.spider_id);
    const now = Date.now();
    const enabled = b.enabled ?? !!cur.enabled;
    const name = b.name !== undefined ? b.name.trim() : cur.name;
    if (!name) throw badRequest('A schedule name is required');
    const timingChanged = s.cron !== cur.cron || s.timezone !== cur.timezone || enabled !== !!cur.enabled;
    await db
      .updateTable('schedules')
      .set({
        name,
        description: b.description ?? cur.description,
        cron: s.cron,
        timezone: s.timezone,
        spider_id: s.spider_id,
        run_type: s.run_type,
        node_ids: JSON.stringify(s.run_type === 'selected-nodes' ? s.node_ids : []),
        param: b.param ?? cur.param,
        retries: s.retries,
        enabled: enabled ? 1 : 0,
        // An edit clears a previous error: the next fire checks spider and nodes again.
        status: enabled ? 'running' : 'stop',
        error: '',
        next_run_ts: enabled ? nextFireTs(s, now) : null,
        ...(timingChanged ? { active_since_ts: now } : {}),
        update_ts: now,
      })
      .where('id', '=', cur.id)
      .execute();
    await changed(cur.id);
    return ok(presentSchedule(await load(cur.id)));
  });

  app.delete('/api/schedules/:id', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const cur = await scheduleFor(
      db,
      req.user,
      req.params.id,
      'change',
      'forbidden: only the owner or an administrator may delete this schedule',
    );
    await db.deleteFrom('schedules').where('id', '=', cur.id).execute();
    await db.deleteFrom('schedule_fires').where('schedule_id', '=', cur.id).execute();
    await changed(cur.id);
    return ok(null);
  });

  for (const action of ['enable', 'disable'] as const) {
    app.post(`/api/schedules/:id/${action}`, { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
      const cur = await scheduleFor(db, req.user, req.params.id, 'change');
      const now = Date.now();
      const enabled = action === 'enable';
      if (enabled && cur.spider_name == null)
        throw badRequest('Not Found Spider: the spider of this schedule was deleted');
      await db
        .updateTable('schedules')
        .set({
          enabled: enabled ? 1 : 0,
          status: enabled ? 'running' : 'stop',
          error: '',
          next_run_ts: enabled ? nextFireTs(cur, now) : null,
          ...(enabled !== !!cur.enabled ? { active_since_ts: now } : {}),
          update_ts: now,
        })
        .where('id', '=', cur.id)
        .execute();
      await changed(cur.id);
      return ok(presentSchedule(await load(cur.id)));
    });
  }

  /** Run now: one fire of kind manual on this master (recorded like any fire), whatever the enabled state. */
  app.post('/api/schedules/:id/run', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const cur = await scheduleFor(db, req.user, req.params.id, 'run');
    let ts = Date.now();
    for (let i = 0; i < 5; i++, ts++) {
      const r = await runFire(ctx, cur.id, ts, 'manual', scheduler.instance, (id) => void scheduler.reload(id));
      if (r.error === 'already fired') continue;
      if (!r.fired) throw badRequest(r.error);
      if (r.error) {
        await changed(cur.id);
        throw badRequest(r.error);
      }
      return ok({ task_ids: r.taskIds, fire_ts: iso(ts) });
    }
    throw badRequest('could not record the run; try again');
  });

  /** The schedule's own task history (also available as GET /tasks?schedule_id=). */
  app.get(
    '/api/schedules/:id/tasks',
    {
      config: { access: 'user' },
      schema: {
        params: IdParams,
        querystring: Type.Object({
          ...pageFields(10000),
        }),
      },
    },
    async (req) => {
      await scheduleFor(db, req.user, req.params.id, 'read');
      const { limit, offset } = paging(req.query, 10);
      const base = db.selectFrom('tasks').where('schedule_id', '=', req.params.id).where(taskReadFilter(req.user));
      const [rows, count] = await Promise.all([
        base
          .leftJoin('nodes', 'nodes.id', 'tasks.node_id')
          .select([
            'tasks.id',
            'tasks.spider_id',
            'tasks.node_id',
            'tasks.schedule_id',
            'tasks.parent_id',
            'tasks.status',
            'tasks.error',
            'tasks.create_ts',
            'tasks.start_ts',
            'tasks.finish_ts',
            'tasks.result_count',
            'nodes.name as node_name',
          ])
          .orderBy('tasks.create_ts', 'desc')
          .orderBy('tasks.id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      ]);
      return ok(
        rows.map((t) => ({
          _id: t.id,
          spider_id: t.spider_id,
          node_id: t.node_id,
          node_name: t.node_name ?? '',
          schedule_id: t.schedule_id,
          parent_id: t.parent_id,
          status: t.status,
          error: t.error,
          result_count: Number(t.result_count ?? 0),
          create_ts: iso(t.create_ts),
          start_ts: iso(t.start_ts),
          finish_ts: iso(t.finish_ts),
        })),
        Number(count?.n ?? 0),
      );
    },
  );

  /** Fire history: when it fired, which tasks it made, or why it made none. */
  app.get(
    '/api/schedules/:id/fires',
    {
      config: { access: 'user' },
      schema: {
        params: IdParams,
        querystring: Type.Object({
          ...pageFields(10000),
        }),
      },
    },
    async (req) => {
      await scheduleFor(db, req.user, req.params.id, 'read');
      const { limit, offset } = paging(req.query, 20);
      const base = db.selectFrom('schedule_fires').where('schedule_id', '=', req.params.id);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('fire_ts', 'desc').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      ]);
      return ok(rows.map(presentFire), Number(count?.n ?? 0));
    },
  );

  app.get('/api/spiders/:id/schedules', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const rows = await schedulesWithSpider(db, scheduleReadFilter(req.user))
      .where('schedules.spider_id', '=', req.params.id)
      .orderBy('schedules.create_ts', 'desc')
      .execute();
    return ok(rows.map(presentSchedule), rows.length);
  });
};

import {
  PRIORITY_DEFAULT,
  RETRY_MAX,
  isValidTimezone,
  newId,
  validateCron,
  type RunType,
  type ScheduleBody,
  type ScheduleInfo,
  type ScheduleUpdateBody,
} from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { AuthUser } from '../../http/auth.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import type { ScheduleConfig } from './schedules.config.ts';
import {
  deleteSchedule,
  getSchedule,
  insertSchedule,
  parseIds,
  presentSchedule,
  updateSchedule,
  type ScheduleRow,
  type ScheduleRowWithSpider,
} from './schedules.store.ts';
import { nextFireTs, type Scheduler } from './scheduler.ts';
import { checkSpiderAccess, commandMissing } from './tasks-port.ts';

/** What the schedule operations share: the app, the configuration, this master's scheduler. */
export interface Schedules {
  ctx: AppContext;
  cfg: ScheduleConfig;
  scheduler: Scheduler;
  /** Whether this master runs the scheduler now. */
  isLeader(): boolean;
  /** A schedule was written: the scheduler (here, and the leader elsewhere) plans it again. */
  changed(id: string): Promise<void>;
}

/** The fields that decide when and where a schedule runs, after defaults and normalisation. */
interface Timing {
  cron: string;
  timezone: string;
  spider_id: string;
  run_type: RunType;
  node_ids: string[];
  retries: number;
  param: string;
}

const normaliseCron = (cron: string) => cron.trim().split(/\s+/).join(' ');

/** Validates a full set of schedule fields; throws a 400 with a clear message. */
async function check(s: Schedules, user: AuthUser, t: Timing, spiderChanged: boolean): Promise<void> {
  if (!isValidTimezone(t.timezone)) throw badRequest(`Unknown time zone "${t.timezone}"`);
  const err = validateCron(t.cron, t.timezone);
  if (err) throw badRequest(err);
  if (t.retries < 0 || t.retries > RETRY_MAX) throw badRequest(`retries must be between 0 and ${RETRY_MAX}`);
  if (t.run_type === 'selected-nodes' && !t.node_ids.length)
    throw badRequest('Select at least one node for the run type "selected-nodes"');
  if (spiderChanged) await checkSpiderAccess(s.ctx, user, t.spider_id);
  // A schedule whose every fire would be refused (a Scrapy command without a spider name) is refused now instead.
  const noCommand = await commandMissing(s.ctx, t.spider_id, t.param);
  if (noCommand) throw badRequest(noCommand);
}

/** The schedule as stored now, as the API shows it. */
export async function presentStored(s: Schedules, id: string): Promise<ScheduleInfo> {
  const row = await getSchedule(s.ctx.store.db, id);
  if (!row) throw notFound('schedule');
  return presentSchedule(row);
}

/** Creates a schedule owned by `user`; returns its id. */
export async function createSchedule(s: Schedules, user: AuthUser, b: ScheduleBody): Promise<string> {
  const t: Timing = {
    cron: normaliseCron(b.cron),
    timezone: b.timezone?.trim() || s.cfg.defaultTimezone,
    spider_id: b.spider_id,
    run_type: b.run_type ?? 'random',
    node_ids: [...new Set(b.node_ids ?? [])],
    retries: b.retries ?? 0,
    param: b.param ?? '',
  };
  await check(s, user, t, true);
  const name = b.name.trim();
  if (!name) throw badRequest('A schedule name is required');
  const now = Date.now();
  const enabled = b.enabled !== false;
  const row: ScheduleRow = {
    id: newId(now),
    name,
    description: b.description ?? '',
    cron: t.cron,
    spider_id: t.spider_id,
    run_type: t.run_type,
    node_ids: JSON.stringify(t.run_type === 'selected-nodes' ? t.node_ids : []),
    param: t.param,
    enabled: enabled ? 1 : 0,
    status: enabled ? 'running' : 'stop',
    error: '',
    retries: t.retries,
    priority: b.priority ?? PRIORITY_DEFAULT,
    skip_if_running: b.skip_if_running ? 1 : 0,
    timezone: t.timezone,
    next_run_ts: enabled ? nextFireTs(t, now) : null,
    last_run_ts: null,
    active_since_ts: now,
    owner_id: user.id,
    create_ts: now,
    update_ts: now,
  };
  await insertSchedule(s.ctx.store.db, row);
  await s.changed(row.id);
  return row.id;
}

/** Applies an edit (any subset of fields); an edit clears a previous error, the next fire checks again. */
export async function editSchedule(
  s: Schedules,
  user: AuthUser,
  cur: ScheduleRowWithSpider,
  b: ScheduleUpdateBody,
): Promise<void> {
  const t: Timing = {
    cron: b.cron !== undefined ? normaliseCron(b.cron) : cur.cron,
    timezone: b.timezone !== undefined ? b.timezone.trim() || s.cfg.defaultTimezone : cur.timezone,
    spider_id: b.spider_id ?? cur.spider_id,
    run_type: (b.run_type ?? cur.run_type) as RunType,
    node_ids: b.node_ids !== undefined ? [...new Set(b.node_ids)] : parseIds(cur.node_ids),
    retries: b.retries ?? cur.retries,
    param: b.param ?? cur.param,
  };
  await check(s, user, t, b.spider_id !== undefined && b.spider_id !== cur.spider_id);
  const now = Date.now();
  const enabled = b.enabled ?? !!cur.enabled;
  const name = b.name !== undefined ? b.name.trim() : cur.name;
  if (!name) throw badRequest('A schedule name is required');
  const timingChanged = t.cron !== cur.cron || t.timezone !== cur.timezone || enabled !== !!cur.enabled;
  await updateSchedule(s.ctx.store.db, cur.id, {
    name,
    description: b.description ?? cur.description,
    cron: t.cron,
    timezone: t.timezone,
    spider_id: t.spider_id,
    run_type: t.run_type,
    node_ids: JSON.stringify(t.run_type === 'selected-nodes' ? t.node_ids : []),
    param: t.param,
    retries: t.retries,
    priority: b.priority ?? cur.priority,
    skip_if_running: b.skip_if_running === undefined ? cur.skip_if_running : b.skip_if_running ? 1 : 0,
    enabled: enabled ? 1 : 0,
    status: enabled ? 'running' : 'stop',
    error: '',
    next_run_ts: enabled ? nextFireTs(t, now) : null,
    ...(timingChanged ? { active_since_ts: now } : {}),
    update_ts: now,
  });
  await s.changed(cur.id);
}

/** Enables or disables a schedule; a schedule whose spider was deleted cannot be enabled. */
export async function setEnabled(s: Schedules, cur: ScheduleRowWithSpider, enabled: boolean): Promise<void> {
  if (enabled && cur.spider_name == null) throw badRequest('Not Found Spider: the spider of this schedule was deleted');
  const now = Date.now();
  await updateSchedule(s.ctx.store.db, cur.id, {
    enabled: enabled ? 1 : 0,
    status: enabled ? 'running' : 'stop',
    error: '',
    next_run_ts: enabled ? nextFireTs(cur, now) : null,
    ...(enabled !== !!cur.enabled ? { active_since_ts: now } : {}),
    update_ts: now,
  });
  await s.changed(cur.id);
}

/** Deletes a schedule and its fire history; the scheduler drops its timer. */
export async function deleteScheduleOf(s: Schedules, id: string): Promise<void> {
  await deleteSchedule(s.ctx.store.db, id);
  await s.changed(id);
}

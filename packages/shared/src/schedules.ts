import { Type, type Static } from '@sinclair/typebox';
import { Id, Int, Str } from './bounds.ts';
import { Envelope, EnvelopeList, Nullable, pageFields } from './paging.ts';
import { Cron } from 'croner';
import { RETRY_MAX } from './constants.ts';
import { RUN_TYPES, TaskPriority } from './tasks.ts';

/**
 * Schedules: their statuses, the cron rule (six fields, seconds first) and the shapes of the API.
 * The cron rule lives here so the master and the console refuse exactly the same expressions.
 */
export const SCHEDULE_STATUSES = ['stop', 'running', 'error'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** The errors that stop a schedule, plus the reasons the scheduler may add. */
export const SCHEDULE_ERRORS = {
  notFoundNode: 'Not Found Node',
  notFoundSpider: 'Not Found Spider',
} as const;

/** Message shown when switching a schedule on or off fails. */
export const SCHEDULE_TOGGLE_ERROR = 'Enabling/Disabling the schedule unsuccessful';

/** Most fire times one preview lists (the cron check call and the schedule form). */
export const CRON_PREVIEW_MAX = 50;

export const CRON_FIELDS = ['second', 'minute', 'hour', 'day of month', 'month', 'day of week'] as const;
const CRON_RANGES: Record<string, string> = {
  second: '0-59',
  minute: '0-59',
  hour: '0-23',
  day: '1-31 or L',
  'day of month': '1-31 or L',
  month: '1-12 or JAN-DEC',
  dayOfWeek: '0-7 or SUN-SAT',
  'day of week': '0-7 or SUN-SAT',
};
const FIELD_NAMES: Record<string, string> = {
  second: 'second',
  minute: 'minute',
  hour: 'hour',
  day: 'day of month',
  month: 'month',
  dayOfWeek: 'day of week',
};

function cronOf(expr: string, timezone?: string): Cron {
  return new Cron(expr, { paused: true, mode: '6-part', timezone: timezone || undefined });
}

/** Whether a time zone name is known to this runtime's Intl (IANA names such as Asia/Shanghai, UTC). */
export function isValidTimezone(tz: string): boolean {
  if (!tz) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * A schedule's cron has six fields, seconds first: second, minute, hour, day of month, month, day of week.
 * Returns null when valid, else a message naming what is wrong (field count, which field, never fires).
 */
export function validateCron(expr: unknown, timezone?: string): string | null {
  if (typeof expr !== 'string' || !expr.trim()) return 'A cron expression is required';
  const parts = expr.trim().split(/\s+/);
  if (parts.length !== 6) {
    return `Invalid cron expression: expected 6 fields (second minute hour day-of-month month day-of-week), got ${parts.length}`;
  }
  if (timezone !== undefined && timezone !== '' && !isValidTimezone(timezone)) return `Unknown time zone "${timezone}"`;
  let cron: Cron;
  try {
    cron = cronOf(parts.join(' '), timezone);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const m = /Invalid value for (\w+)/.exec(msg) ?? /(second|minute|hour|day|month|dayOfWeek)/.exec(msg);
    if (m && FIELD_NAMES[m[1]]) {
      const field = FIELD_NAMES[m[1]];
      const index = CRON_FIELDS.indexOf(field as (typeof CRON_FIELDS)[number]);
      return `Invalid cron expression: the ${field} field "${parts[index] ?? ''}" is out of range or malformed (allowed ${CRON_RANGES[field]})`;
    }
    return `Invalid cron expression: ${msg.replace(/^CronPattern:\s*/, '')}`;
  }
  try {
    if (!cron.nextRun()) return 'Invalid cron expression: it never fires';
  } finally {
    cron.stop();
  }
  return null;
}

export function isValidCron(expr: unknown, timezone?: string): boolean {
  return validateCron(expr, timezone) === null;
}

/** The next `n` fire times strictly after `from` (empty for an invalid expression). At most CRON_PREVIEW_MAX. */
export function nextCronRuns(expr: string, n: number, timezone?: string, from: Date = new Date()): Date[] {
  const count = Number.isFinite(n) ? Math.min(Math.max(0, Math.floor(n)), CRON_PREVIEW_MAX) : CRON_PREVIEW_MAX;
  if (validateCron(expr, timezone)) return [];
  const cron = cronOf(expr.trim(), timezone);
  try {
    return cron.nextRuns(count, from);
  } finally {
    cron.stop();
  }
}

/** The next fire time strictly after `from`, or null. */
export function nextCronRun(expr: string, timezone?: string, from: Date = new Date()): Date | null {
  return nextCronRuns(expr, 1, timezone, from)[0] ?? null;
}

/** The cron as the schedule list shows it: without its seconds field, which is nearly always 0 and only adds noise. */
export function cronWithoutSeconds(expr: string): string {
  const parts = expr.trim().split(/\s+/);
  return parts.length === 6 ? parts.slice(1).join(' ') : expr.trim();
}

const RunTypeSchema = Type.Union(RUN_TYPES.map((r) => Type.Literal(r)));

export const ScheduleBody = Type.Object({
  name: Str(200, { minLength: 1 }),
  description: Type.Optional(Str(2000)),
  cron: Str(200),
  spider_id: Id,
  run_type: Type.Optional(RunTypeSchema),
  node_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  param: Type.Optional(Str(10000)),
  enabled: Type.Optional(Type.Boolean()),
  retries: Type.Optional(Int(0, RETRY_MAX)),
  /** Queue priority of the tasks its fires make: 1 (highest) to 5 (lowest), default 3. */
  priority: Type.Optional(TaskPriority),
  /** Skip a fire (recorded as skipped) while a task of this schedule is still pending or running. */
  skip_if_running: Type.Optional(Type.Boolean()),
  /** IANA zone the cron is read in; default CRAWLDECK_TZ or the master's zone. */
  timezone: Type.Optional(Str(100)),
});
export type ScheduleBody = Static<typeof ScheduleBody>;

/** POST /schedules/{id}: any subset of the fields. */
export const ScheduleUpdateBody = Type.Partial(ScheduleBody);
export type ScheduleUpdateBody = Static<typeof ScheduleUpdateBody>;

export const ScheduleListQuery = Type.Object({
  ...pageFields(99999999),
  spider_id: Type.Optional(Str(64)),
  keyword: Type.Optional(Str(200)),
});
export type ScheduleListQuery = Static<typeof ScheduleListQuery>;

export const CronCheckQuery = Type.Object({
  cron: Str(200),
  timezone: Type.Optional(Str(100)),
  n: Type.Optional(Int(1, CRON_PREVIEW_MAX)),
});
export type CronCheckQuery = Static<typeof CronCheckQuery>;

const Ts = Nullable(Type.String({ description: 'ISO 8601 time' }));

/** A schedule as the API shows it. */
export const ScheduleInfo = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  cron: Type.String(),
  spider_id: Type.String(),
  /** null when the spider was deleted (the status is then error). */
  spider_name: Nullable(Type.String()),
  run_type: RunTypeSchema,
  node_ids: Type.Array(Type.String()),
  param: Type.String(),
  enabled: Type.Boolean(),
  status: Type.Union(SCHEDULE_STATUSES.map((s) => Type.Literal(s))),
  /** Reason when status is error: 'Not Found Spider', 'Not Found Node', or a scheduler message. */
  error: Type.String(),
  retries: Type.Number(),
  priority: Type.Number(),
  skip_if_running: Type.Boolean(),
  timezone: Type.String(),
  next_run_ts: Ts,
  last_run_ts: Ts,
  owner_id: Nullable(Type.String()),
  create_ts: Ts,
  update_ts: Ts,
});
export type ScheduleInfo = Static<typeof ScheduleInfo>;

/** Why a fire made no task on purpose; '' for a fire that was not skipped. */
export const FIRE_SKIP_REASONS = ['', 'previous_running'] as const;
export type FireSkipReason = (typeof FIRE_SKIP_REASONS)[number];

/** One fire of a schedule: when, why (cron, catch-up, manual), which tasks it made or why it made none. */
export const ScheduleFireInfo = Type.Object({
  schedule_id: Type.String(),
  fire_ts: Type.String(),
  kind: Type.Union([Type.Literal('cron'), Type.Literal('catch-up'), Type.Literal('manual')]),
  task_ids: Type.Array(Type.String()),
  error: Type.String(),
  /** Why the fire made no task on purpose: 'previous_running' (the previous run still went); '' otherwise. */
  skipped: Type.Union(FIRE_SKIP_REASONS.map((r) => Type.Literal(r))),
  create_ts: Ts,
});
export type ScheduleFireInfo = Static<typeof ScheduleFireInfo>;

/** GET /schedules/meta: the scheduler's settings and whether this master runs it. */
export const ScheduleMeta = Type.Object({
  default_timezone: Type.String(),
  grace_seconds: Type.Number(),
  retry_max: Type.Number(),
  leader: Type.Boolean(),
});
export type ScheduleMeta = Static<typeof ScheduleMeta>;

/** GET /schedules/cron: whether an expression is valid, why not, and its next fire times. */
export const CronCheck = Type.Object({
  valid: Type.Boolean(),
  error: Type.String(),
  timezone: Type.String(),
  next: Type.Array(Type.String()),
});
export type CronCheck = Static<typeof CronCheck>;

/** POST /schedules/{id}/run: the tasks the fire made and its time. */
export const ScheduleRunResult = Type.Object({ task_ids: Type.Array(Type.String()), fire_ts: Ts });
export type ScheduleRunResult = Static<typeof ScheduleRunResult>;

export const SchedulePageQuery = Type.Object({ ...pageFields(10000) });
export type SchedulePageQuery = Static<typeof SchedulePageQuery>;

export const ScheduleResponse = Envelope(ScheduleInfo);
export const ScheduleListResponse = EnvelopeList(ScheduleInfo);
export const ScheduleFireListResponse = EnvelopeList(ScheduleFireInfo);
export const ScheduleMetaResponse = Envelope(ScheduleMeta);
export const CronCheckResponse = Envelope(CronCheck);
export const ScheduleRunResponse = Envelope(ScheduleRunResult);

/**
 * Scheduler and webhook settings, read from the environment when a master starts (README "Configuration").
 * Kept in the feature so the feature owns its knobs; tests set the variables before starting a master.
 */
export interface ScheduleConfig {
  /** Zone a schedule's cron is read in when none is given: CRAWLDECK_TZ, else the master's zone. */
  defaultTimezone: string;
  /** A fire missed by at most this much (downtime, leader hand-over, a blocked loop) is run once late; older ones are skipped. */
  graceMs: number;
  /** How often a master that is not the scheduler leader tries to take the PostgreSQL advisory lock. */
  lockRetryMs: number;
  /** CRAWLDECK_SCHEDULER=off keeps this master out of the leader election (it still serves the API). */
  schedulerEnabled: boolean;
  webhookTimeoutMs: number;
  /** First retry delay; each further retry doubles it. */
  webhookBackoffMs: number;
}

function num(v: string | undefined, fallback: number, min = 0): number {
  const n = Number(v);
  return v !== undefined && v !== '' && Number.isFinite(n) && n >= min ? n : fallback;
}

export function systemTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function loadScheduleConfig(env: NodeJS.ProcessEnv = process.env): ScheduleConfig {
  return {
    defaultTimezone: env.CRAWLDECK_TZ || env.TZ || systemTimezone(),
    graceMs: num(env.CRAWLDECK_SCHEDULE_GRACE_SECONDS, 60) * 1000,
    lockRetryMs: num(env.CRAWLDECK_SCHEDULER_LOCK_RETRY_SECONDS, 3, 0.05) * 1000,
    schedulerEnabled: !['0', 'off', 'false', 'no'].includes((env.CRAWLDECK_SCHEDULER ?? '').toLowerCase()),
    webhookTimeoutMs: num(env.CRAWLDECK_WEBHOOK_TIMEOUT_MS, 5000, 1),
    webhookBackoffMs: num(env.CRAWLDECK_WEBHOOK_BACKOFF_MS, 1000, 1),
  };
}

import type { MasterConfig } from '../../config.ts';

/** The scheduler's and the webhook deliveries' settings, taken from the master's configuration at start-up. */
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

export function scheduleConfigOf(config: MasterConfig): ScheduleConfig {
  return {
    defaultTimezone: config.defaultTimezone,
    graceMs: config.scheduleGraceMs,
    lockRetryMs: config.schedulerLockRetryMs,
    schedulerEnabled: config.schedulerEnabled,
    webhookTimeoutMs: config.webhookTimeoutMs,
    webhookBackoffMs: config.webhookBackoffMs,
  };
}

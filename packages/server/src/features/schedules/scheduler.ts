/**
 * The cron scheduler. Runs on the scheduler leader only (see leader.ts).
 *
 * - One timer per enabled schedule, armed for its next fire time (no polling loop), re-armed after each fire.
 * - Each fire is first recorded in `schedule_fires` under the unique (schedule_id, fire_ts) key; only the
 *   caller whose insert succeeded creates the tasks. A second leader, a restarted master or a duplicate timer
 *   can therefore never run the same fire twice.
 * - Missed fires (downtime, leader hand-over, a blocked event loop): at most ONE catch-up fire, for the latest
 *   missed fire time, and only if it is no older than the grace window; every older missed fire is skipped.
 *   See docs/schedules.md.
 */
import { Cron } from 'croner';
import { SCHEDULE_ERRORS, newId, type RunType } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { JobHandle } from '../../jobs/job-runner.ts';
import type { ScheduleConfig } from './schedules.config.ts';
import {
  advanceLastRun,
  allSchedules,
  claimFire,
  clearScheduleError,
  getScheduleRow,
  parseIds,
  previousRunGoing,
  setFireError,
  setFireSkipped,
  setFireTasks,
  updateSchedule,
  type ScheduleRow,
} from './schedules.store.ts';
import { commandMissing, createTasks, existingNodeIds, ownerMayRun, spiderExists } from './tasks-port.ts';

/** setTimeout's ceiling; longer waits are re-armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Safety net: re-read every schedule this often in case a change notification was lost. */
const RESYNC_MS = 60_000;

export interface FireResult {
  fired: boolean;
  taskIds: string[];
  error: string;
}

interface Armed {
  timer: NodeJS.Timeout;
  fireTs: number;
  /** Re-plan when any of these change. */
  signature: string;
}

export function cronFor(row: Pick<ScheduleRow, 'cron' | 'timezone'>): Cron {
  return new Cron(row.cron, { paused: true, mode: '6-part', timezone: row.timezone || undefined });
}

/** Next fire time strictly after `after` (epoch ms), or null. */
export function nextFireTs(row: Pick<ScheduleRow, 'cron' | 'timezone'>, after: number): number | null {
  try {
    const c = cronFor(row);
    const d = c.nextRun(new Date(after));
    c.stop();
    return d ? d.getTime() : null;
  } catch {
    return null;
  }
}

/** The latest fire time in (from, to], or null. */
export function latestFireBetween(
  row: Pick<ScheduleRow, 'cron' | 'timezone'>,
  from: number,
  to: number,
): number | null {
  try {
    const c = cronFor(row);
    const prev = c.previousRuns(1, new Date(to + 1))[0];
    c.stop();
    const ts = prev?.getTime();
    return ts != null && ts > from && ts <= to ? ts : null;
  } catch {
    return null;
  }
}

const signatureOf = (r: ScheduleRow) => `${r.cron}|${r.timezone}|${r.enabled}|${r.status}|${r.active_since_ts}`;

export class Scheduler {
  private armed = new Map<string, Armed>();
  private inFlight = new Set<Promise<unknown>>();
  private resyncJob: JobHandle | undefined;
  private running = false;
  /** Identifies this master in schedule_fires.master. */
  readonly instance = newId();

  constructor(
    private ctx: AppContext,
    private cfg: ScheduleConfig,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  private get db() {
    return this.ctx.store.db;
  }

  /** Becomes active: plans every enabled schedule, with the catch-up policy for fires missed while no one ran. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.ctx.log.info({ instance: this.instance }, 'scheduler started on this master');
    await this.resync(true);
    if (!this.running) return; // stopped meanwhile (the lock was lost again)
    this.resyncJob = this.ctx.jobs.every({
      name: 'schedule-resync',
      everyMs: RESYNC_MS,
      run: () => this.resync(false),
    });
  }

  /** Stops firing (leader lost or shutdown) and waits for fires in progress. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    const resync = this.resyncJob;
    this.resyncJob = undefined;
    await resync?.stop();
    for (const a of this.armed.values()) clearTimeout(a.timer);
    this.armed.clear();
    await this.settled();
  }

  /** Resolves when the fires (and their bookkeeping) in progress now have finished. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async resync(catchUp: boolean): Promise<void> {
    const rows = await allSchedules(this.db);
    if (!this.running) return;
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.id);
      const a = this.armed.get(row.id);
      if (!a || a.signature !== signatureOf(row)) await this.plan(row, catchUp);
    }
    for (const id of [...this.armed.keys()]) if (!seen.has(id)) this.disarm(id);
  }

  /** A schedule was created, edited, enabled, disabled or deleted (any master): plan it again, no catch-up. */
  async reload(id: string): Promise<void> {
    if (!this.running) return;
    const row = await getScheduleRow(this.db, id);
    if (!this.running) return;
    if (!row) return this.disarm(id);
    await this.plan(row, false);
  }

  private disarm(id: string): void {
    const a = this.armed.get(id);
    if (a) clearTimeout(a.timer);
    this.armed.delete(id);
  }

  private async plan(row: ScheduleRow, catchUp: boolean): Promise<void> {
    this.disarm(row.id);
    if (!row.enabled || row.status === 'error') return;
    const now = Date.now();
    if (catchUp) {
      // Latest fire time that nobody ran: after the last recorded fire and after (re-)activation, within grace.
      const floor = Math.max(row.last_run_ts ?? 0, row.active_since_ts, now - this.cfg.graceMs - 1);
      const missed = latestFireBetween(row, floor, now);
      if (missed != null) this.track(this.fire(row.id, missed, 'catch-up'));
    }
    this.arm(row, nextFireTs(row, now));
  }

  /** Sets the timer for `fireTs`; the next_run_ts write waits for `after` (a fire in progress goes first). */
  private arm(row: ScheduleRow, fireTs: number | null, after?: Promise<unknown>): void {
    if (!this.running) return;
    this.disarm(row.id);
    if (fireTs == null) return;
    const wait = Math.min(Math.max(0, fireTs - Date.now()), MAX_TIMER_MS);
    const timer = setTimeout(() => this.onTimer(row, fireTs), wait);
    this.armed.set(row.id, { timer, fireTs, signature: signatureOf(row) });
    if (row.next_run_ts !== fireTs) {
      row.next_run_ts = fireTs;
      const write = () => updateSchedule(this.db, row.id, { next_run_ts: fireTs });
      this.track(after ? after.catch(() => undefined).then(write) : write());
    }
  }

  private onTimer(row: ScheduleRow, fireTs: number): void {
    if (!this.running || this.armed.get(row.id)?.fireTs !== fireTs) return;
    const now = Date.now();
    // Timers are never early by more than rounding, but long waits are split at MAX_TIMER_MS.
    if (now < fireTs) {
      this.armed.delete(row.id);
      return this.arm(row, fireTs);
    }
    // If the loop was blocked past further fire times, run only the latest one (never a burst).
    const latest = latestFireBetween(row, fireTs - 1, now) ?? fireTs;
    const firing =
      now - latest <= this.cfg.graceMs ? this.fire(row.id, latest, latest === fireTs ? 'cron' : 'catch-up') : undefined;
    if (firing) this.track(firing);
    // The next timer is set at once (a slow fire never delays the following one); its bookkeeping write waits.
    this.arm(row, nextFireTs(row, now), firing);
  }

  private track<T>(p: Promise<T>): void {
    const tracked = p
      .catch((err) => this.ctx.log.error({ err }, 'scheduler step failed'))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /**
   * Runs one fire of a schedule: claim (schedule, fireTs), check spider and nodes, create the tasks.
   * Used by the timers and by "run now" (kind manual, any master).
   */
  async fire(scheduleId: string, fireTs: number, kind: 'cron' | 'catch-up' | 'manual'): Promise<FireResult> {
    return runFire(this.ctx, scheduleId, fireTs, kind, this.instance, (id) => this.disarm(id));
  }
}

/** Shared by the scheduler and the run-now call. */
export async function runFire(
  ctx: AppContext,
  scheduleId: string,
  fireTs: number,
  kind: 'cron' | 'catch-up' | 'manual',
  instance: string,
  onError?: (id: string) => void,
): Promise<FireResult> {
  const db = ctx.store.db;
  const row = await getScheduleRow(db, scheduleId);
  if (!row || (kind !== 'manual' && !row.enabled))
    return { fired: false, taskIds: [], error: 'schedule is gone or disabled' };
  if (!(await claimFire(db, { schedule_id: row.id, fire_ts: fireTs, kind, master: instance }))) {
    return { fired: false, taskIds: [], error: 'already fired' };
  }
  const fail = async (error: string, persistent: boolean): Promise<FireResult> => {
    await setFireError(db, row.id, fireTs, error);
    if (persistent) {
      await updateSchedule(db, row.id, { status: 'error', error, next_run_ts: null });
      onError?.(row.id);
      ctx.events.emit('schedule.changed', { scheduleId: row.id });
    }
    ctx.log.warn({ scheduleId: row.id, fireTs, error }, 'schedule fire did not create tasks');
    ctx.events.emit('schedule.skipped', { scheduleId: row.id, spiderId: row.spider_id, error });
    return { fired: true, taskIds: [], error };
  };

  if (!(await spiderExists(ctx, row.spider_id))) return fail(SCHEDULE_ERRORS.notFoundSpider, true);
  // Saving refuses such a schedule; the spider's command may have changed since. It can never run: shown in error.
  const noCommand = await commandMissing(ctx, row.spider_id, row.param);
  if (noCommand) return fail(noCommand, true);
  if (!(await ownerMayRun(ctx, row.owner_id, row.spider_id)))
    return fail('forbidden: the owner of this schedule may no longer run its spider', false);
  let nodeIds = parseIds(row.node_ids);
  if (row.run_type === 'selected-nodes') {
    nodeIds = await existingNodeIds(ctx, nodeIds);
    if (!nodeIds.length) return fail(SCHEDULE_ERRORS.notFoundNode, true);
  }
  // Only the schedule's own fires are skipped: a run started by hand is what its user asked for.
  if (row.skip_if_running && kind !== 'manual' && (await previousRunGoing(db, row.id, fireTs))) {
    await setFireSkipped(db, row.id, fireTs, 'previous_running');
    await advanceLastRun(db, row.id, fireTs);
    ctx.log.info({ scheduleId: row.id, fireTs }, 'schedule fire skipped: the previous run still goes');
    return { fired: true, taskIds: [], error: '' };
  }
  let taskIds: string[];
  try {
    // The fire's record of its tasks is written with them: a crash cannot leave tasks the record does not name.
    const input = {
      spiderId: row.spider_id,
      runType: row.run_type as RunType,
      nodeIds,
      param: row.param,
      scheduleId: row.id,
      ownerId: row.owner_id,
      priority: row.priority,
    };
    taskIds = await createTasks(ctx, input, (trx, ids) => setFireTasks(trx, row.id, fireTs, ids));
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err), false);
  }
  if (kind !== 'manual') await advanceLastRun(db, row.id, fireTs);
  if (row.enabled && row.status !== 'running') await clearScheduleError(db, row.id);
  return { fired: true, taskIds, error: '' };
}

/**
 * One scheduler per deployment.
 *
 * - SQLite: a data directory belongs to one master, so that master is the leader.
 * - PostgreSQL: the leader is the master holding a session-level advisory lock on a dedicated connection
 *   (not a pool connection, so the lock lives exactly as long as that connection). The others retry
 *   `pg_try_advisory_lock` every few seconds; when the holder dies its connection closes, PostgreSQL releases
 *   the lock and the next try of another master takes over. The leader pings its connection at the same pace
 *   and stops firing the moment it is lost. Even if two masters briefly both fired, the unique
 *   (schedule_id, fire_ts) key lets only one of them create tasks.
 * - The same dedicated connection LISTENs on `crawldeck_schedules`, so a schedule edited through any master
 *   is re-planned by the leader at once.
 */
import pg from 'pg';
import { notifyChannel } from './schedules.store.ts';
import type { AppContext } from '../../context.ts';
import type { Scheduler } from './scheduler.ts';

/** Arbitrary constant key of the scheduler's advisory lock ("crawldeck:scheduler"). */
export const SCHEDULER_LOCK_KEY = '7146312004781920001';
export const SCHEDULE_CHANNEL = 'crawldeck_schedules';
const CONNECT_TIMEOUT_MS = 10_000;

export class SchedulerLeader {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private leader = false;
  private busy = false;

  constructor(
    private ctx: AppContext,
    private scheduler: Scheduler,
    private retryMs: number,
  ) {}

  get isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    if (this.ctx.store.engine === 'sqlite') {
      this.leader = true;
      await this.scheduler.start();
      return;
    }
    await this.tick();
    this.loop();
  }

  private loop(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick().finally(() => this.loop()), this.retryMs);
    this.timer.unref();
  }

  /** Non-leader: try to take the lock. Leader: check the lock connection is alive. */
  private async tick(): Promise<void> {
    if (this.closed || this.busy) return;
    this.busy = true;
    try {
      if (this.leader) {
        await this.client!.query('SELECT 1');
        return;
      }
      if (!this.client) await this.connect();
      const r = await this.client!.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [
        SCHEDULER_LOCK_KEY,
      ]);
      if (r.rows[0]?.ok && !this.closed) {
        this.leader = true;
        this.ctx.log.info('this master took the scheduler lock');
        await this.scheduler.start();
      }
    } catch (err) {
      this.ctx.log.warn({ err }, 'scheduler lock connection failed');
      await this.lost();
    } finally {
      this.busy = false;
    }
  }

  private async connect(): Promise<void> {
    // A bounded connect: while PostgreSQL is unreachable the election keeps its pace instead of hanging.
    const client = new pg.Client({
      connectionString: this.ctx.config.databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    client.on('error', (err) => {
      this.ctx.log.warn({ err }, 'scheduler lock connection error');
      if (this.client === client) void this.lost();
    });
    client.on('end', () => {
      if (this.client === client && !this.closed) void this.lost();
    });
    client.on('notification', (msg) => {
      if (msg.channel === SCHEDULE_CHANNEL && msg.payload && this.leader) {
        void this.scheduler.reload(msg.payload).catch((err) => this.ctx.log.error({ err }, 'schedule reload failed'));
      }
    });
    await client.connect();
    this.client = client;
    await client.query(`LISTEN ${SCHEDULE_CHANNEL}`);
  }

  /** The lock connection is gone: stop firing at once (PostgreSQL has released the lock). */
  private async lost(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (this.leader) {
      this.leader = false;
      this.ctx.log.warn('scheduler lock lost; this master stops firing');
      await this.scheduler.stop();
    }
    await client?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.scheduler.stop();
    this.leader = false;
    const client = this.client;
    this.client = undefined;
    // Ending the session releases the advisory lock for the next master.
    await client?.end().catch(() => undefined);
  }
}

/** Tells the leader (whichever master it is) that a schedule changed. */
export async function notifyScheduleChanged(ctx: AppContext, scheduleId: string): Promise<void> {
  if (ctx.store.engine !== 'postgres') return;
  await notifyChannel(ctx.store.db, SCHEDULE_CHANNEL, scheduleId);
}

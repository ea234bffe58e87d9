import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { CoreContext } from '../../context.ts';
import { notifyChannel } from './task-bus.store.ts';

/**
 * Cross-master notices for task execution on PostgreSQL, carried by LISTEN/NOTIFY so no master polls. Each node
 * holds its WebSocket to one master, so a task created, cancelled or deleted through another master must reach the
 * master that holds the node: `dispatch` wakes every master's dispatch pass (claims stay safe with SKIP LOCKED),
 * `cancel` and `drop` are delivered by whichever master holds the task's node, as is `env.wake` (environment jobs
 * or new index settings wait for these nodes). On SQLite there is one master and
 * the bus does nothing.
 */
export const TASK_CHANNEL = 'crawldeck_tasks';

export type BusMessage =
  | { type: 'dispatch' }
  | { type: 'cancel'; taskId: string; nodeId: string }
  | { type: 'drop'; taskId: string; nodeId: string }
  /** The node's key was revoked: whichever master holds its socket cuts it. */
  | { type: 'cut'; nodeId: string }
  | { type: 'env.wake'; nodeIds: string[] };

const RECONNECT_MS = 1000;
const CONNECT_TIMEOUT_MS = 10_000;

export class TaskBus {
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  /** Lets a master skip its own notices, which it has already acted on. */
  private readonly origin = randomUUID();

  constructor(
    private ctx: CoreContext,
    private onMessage: (m: BusMessage) => void,
  ) {}

  private get enabled(): boolean {
    return this.ctx.store.engine === 'postgres';
  }

  async start(): Promise<void> {
    if (this.enabled) await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.ctx.config.databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    const lost = () => {
      if (this.client !== client || this.closed) return;
      this.client = undefined;
      void client.end().catch(() => undefined);
      this.retry = setTimeout(
        () => void this.connect().catch((err: unknown) => this.ctx.log.warn({ err }, 'task bus reconnect failed')),
        RECONNECT_MS,
      );
      this.retry.unref();
    };
    client.on('error', (err) => {
      this.ctx.log.warn({ err }, 'task bus connection error');
      lost();
    });
    client.on('end', lost);
    client.on('notification', (msg) => {
      if (msg.channel !== TASK_CHANNEL || !msg.payload) return;
      try {
        const m = JSON.parse(msg.payload) as BusMessage & { origin?: string };
        if (m.origin !== this.origin) this.onMessage(m);
      } catch (err) {
        this.ctx.log.warn({ err }, 'task bus: unreadable notice');
      }
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${TASK_CHANNEL}`);
    } catch (err) {
      this.ctx.log.warn({ err }, 'task bus could not listen');
      lost();
      return;
    }
    // Notices sent while this master was not listening are gone: one dispatch pass picks up their tasks.
    this.onMessage({ type: 'dispatch' });
  }

  /** Tells the other masters; errors are logged, never thrown (the sender already acted locally). */
  async publish(m: BusMessage): Promise<void> {
    if (!this.enabled || this.closed) return;
    try {
      await notifyChannel(this.ctx.store.db, TASK_CHANNEL, JSON.stringify({ ...m, origin: this.origin }));
    } catch (err) {
      this.ctx.log.warn({ err, notice: m.type }, 'task bus publish failed');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { statusOf } from '../execution/sessions.ts';
import type { AppContext } from '../../context.ts';
import { TASK_STATUSES } from '@crawldeck/shared';
import { taskStatusCounts } from '../stats/stats.store.ts';
import { deliveriesSince, firesSince, nodesForMetrics, oldestPendingCreateTs, taskWait } from './metrics.store.ts';
import { outboxDepth } from '../../outbox/outbox.store.ts';
import { alertsSince } from '../notifications/notifications.store.ts';

const PREFIX = 'crawldeck_';
/** Rows of fires or deliveries read per scrape at most; the rest are counted by the next scrape. */
const ROWS_PER_SCRAPE = 5000;
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const WAIT_SECONDS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

/**
 * The master's Prometheus metrics, each master its own registry (tests run several masters in one process).
 * Gauges of stored state (tasks, queue, nodes) are read from the store at scrape time; what flows through this
 * master (log lines, items, HTTP requests, tasks it saw start) is counted as it happens; schedule fires and
 * webhook deliveries recorded by any master since this one started are counted as the scrapes find them.
 */
export class MasterMetrics {
  readonly registry = new Registry();
  private readonly db;
  private lastFireTs = Date.now();
  private lastDeliveryTs = Date.now();
  private lastAlertTs = Date.now();

  readonly httpSeconds = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP request duration by matched route',
    labelNames: ['method', 'route', 'status'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly logLines = new Counter({
    name: `${PREFIX}log_lines_ingested_total`,
    help: 'Task log lines stored by this master',
    registers: [this.registry],
  });
  readonly errorLines = new Counter({
    name: `${PREFIX}error_lines_ingested_total`,
    help: 'Task log lines flagged as error lines, stored by this master',
    registers: [this.registry],
  });
  readonly items = new Counter({
    name: `${PREFIX}items_ingested_total`,
    help: 'Result items stored by this master',
    registers: [this.registry],
  });
  readonly queueWait = new Histogram({
    name: `${PREFIX}task_queue_wait_seconds`,
    help: 'Time from task creation to its start, for tasks this master saw start',
    buckets: WAIT_SECONDS,
    registers: [this.registry],
  });
  private readonly fires = new Counter({
    name: `${PREFIX}schedule_fires_total`,
    help: 'Schedule fires recorded since this master started',
    labelNames: ['kind', 'result'],
    registers: [this.registry],
  });
  private readonly fireLag = new Histogram({
    name: `${PREFIX}schedule_fire_lag_seconds`,
    help: 'Delay between a fire time and the fire being recorded',
    buckets: [0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: `${PREFIX}webhook_deliveries_total`,
    help: 'Webhook delivery attempts recorded since this master started',
    labelNames: ['event', 'result'],
    registers: [this.registry],
  });

  private readonly firings = new Counter({
    name: `${PREFIX}rule_firings_total`,
    help: 'Notification rule firings recorded since this master started (one per firing, whatever its channels)',
    labelNames: ['event'],
    registers: [this.registry],
  });

  constructor(private readonly ctx: AppContext) {
    this.db = ctx.store.db;
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    this.storeGauges();
    this.ingestOrderMetrics();
    this.jobMetrics();
  }

  /** The master's background jobs: how often each ran and failed, and how long its last run took. */
  private jobMetrics(): void {
    const jobs = () => this.ctx.jobs.list();
    const registers = [this.registry];
    new Counter({
      name: `${PREFIX}job_runs_total`,
      help: 'Runs of each background job since this master started',
      labelNames: ['job'],
      registers,
      collect() {
        this.reset();
        for (const j of jobs()) this.inc({ job: j.name }, j.runs);
      },
    });
    new Counter({
      name: `${PREFIX}job_failures_total`,
      help: 'Failed runs of each background job since this master started',
      labelNames: ['job'],
      registers,
      collect() {
        this.reset();
        for (const j of jobs()) this.inc({ job: j.name }, j.failures);
      },
    });
    new Gauge({
      name: `${PREFIX}job_last_run_seconds`,
      help: "How long each background job's last run took",
      labelNames: ['job'],
      registers,
      collect() {
        this.reset();
        for (const j of jobs()) this.set({ job: j.name }, j.lastDurationMs / 1000);
      },
    });
    new Gauge({
      name: `${PREFIX}job_failing_runs`,
      help: 'Failed runs in a row of each background job (0 once it succeeds again)',
      labelNames: ['job'],
      registers,
      collect() {
        this.reset();
        for (const j of jobs()) this.set({ job: j.name }, j.failingFor);
      },
    });
  }

  private storeGauges(): void {
    const store = this.ctx.store;
    const db = this.db;
    const registers = [this.registry];
    // One scrape collects the gauges side by side: the two that need tasks per status share one read of them.
    let reading: ReturnType<typeof taskStatusCounts> | undefined;
    const statusCounts = () => (reading ??= taskStatusCounts(store).finally(() => (reading = undefined)));
    new Gauge({
      name: `${PREFIX}tasks`,
      help: 'Stored tasks by status',
      labelNames: ['status'],
      registers,
      async collect() {
        const counts = new Map((await statusCounts()).map((r) => [r.status, r.n]));
        for (const s of TASK_STATUSES) this.set({ status: s }, counts.get(s) ?? 0);
      },
    });
    new Gauge({
      name: `${PREFIX}task_queue_depth`,
      help: 'Tasks waiting for a node (pending)',
      registers,
      async collect() {
        this.set((await statusCounts()).find((r) => r.status === 'pending')?.n ?? 0);
      },
    });
    new Gauge({
      name: `${PREFIX}task_queue_oldest_wait_seconds`,
      help: 'How long the longest-waiting pending task has waited',
      registers,
      async collect() {
        const ts = await oldestPendingCreateTs(db);
        this.set(ts == null ? 0 : Math.max(0, (Date.now() - ts) / 1000));
      },
    });
    // Nodes this master holds a session for are read live; the store's copy of them is flushed only now and then.
    const nodeRows = async () => {
      const rt = this.ctx.execution;
      return (await nodesForMetrics(db)).map((n) => {
        const live = rt.liveSession(n.id);
        return live ? { ...n, status: statusOf(live), running: live.active.size } : n;
      });
    };
    new Gauge({
      name: `${PREFIX}nodes`,
      help: 'Nodes by status',
      labelNames: ['status'],
      registers,
      async collect() {
        this.reset();
        for (const n of await nodeRows()) this.inc({ status: n.status });
      },
    });
    new Gauge({
      name: `${PREFIX}node_running_tasks`,
      help: 'Task processes running on each node',
      labelNames: ['node_id', 'node'],
      registers,
      async collect() {
        this.reset();
        for (const n of await nodeRows()) this.set({ node_id: n.id, node: n.name }, n.running);
      },
    });
    new Gauge({
      name: `${PREFIX}webhook_outbox_depth`,
      help: 'Webhook deliveries waiting for their next attempt',
      registers,
      async collect() {
        this.set(await outboxDepth(db, 'webhook'));
      },
    });
    new Gauge({
      name: `${PREFIX}notification_outbox_depth`,
      help: 'Notifications waiting for their next attempt',
      registers,
      async collect() {
        this.set(await outboxDepth(db, 'notification'));
      },
    });
  }

  /** How the batches of one task's log or items arrive at this master when a node keeps several in flight. */
  private ingestOrderMetrics(): void {
    const stats = this.ctx.execution.ingestOrder.stats;
    const registers = [this.registry];
    new Gauge({
      name: `${PREFIX}ingest_batches_in_flight_max`,
      help: "The most batches of one task's log or items this master has held at once",
      registers,
      collect() {
        this.set(stats.maxInFlight);
      },
    });
    new Counter({
      name: `${PREFIX}ingest_batches_waited_total`,
      help: 'Batches that arrived before their predecessor was stored and waited for it',
      registers,
      collect() {
        this.reset();
        this.inc(stats.waited);
      },
    });
    new Counter({
      name: `${PREFIX}ingest_batches_refused_total`,
      help: 'Batches whose predecessor did not arrive in time; the node ships them again',
      registers,
      collect() {
        this.reset();
        this.inc(stats.refused);
      },
    });
  }

  /** Counts fires, deliveries and rule firings recorded since the last scrape. */
  private async readNewRows(): Promise<void> {
    for (const f of await firesSince(this.db, this.lastFireTs, ROWS_PER_SCRAPE)) {
      this.fires.inc({ kind: f.kind, result: f.error ? 'failed' : 'ok' });
      this.fireLag.observe(Math.max(0, (Number(f.create_ts) - Number(f.fire_ts)) / 1000));
      this.lastFireTs = Math.max(this.lastFireTs, Number(f.create_ts));
    }
    for (const d of await deliveriesSince(this.db, this.lastDeliveryTs, ROWS_PER_SCRAPE)) {
      this.deliveries.inc({ event: d.event, result: d.ok ? 'ok' : 'failed' });
      this.lastDeliveryTs = Math.max(this.lastDeliveryTs, Number(d.create_ts));
    }
    // The alerts of one firing are stored in one statement with one time, so a scrape sees all of them or none.
    const seen = new Set<string>();
    for (const a of await alertsSince(this.db, this.lastAlertTs, ROWS_PER_SCRAPE)) {
      if (!seen.has(a.firing_id)) this.firings.inc({ event: a.event });
      seen.add(a.firing_id);
      this.lastAlertTs = Math.max(this.lastAlertTs, Number(a.create_ts));
    }
  }

  async scrape(): Promise<string> {
    await this.readNewRows();
    return this.registry.metrics();
  }

  /** A task this master saw start: how long it waited in the queue. */
  async observeStart(taskId: string): Promise<void> {
    const t = await taskWait(this.db, taskId);
    if (t?.start_ts != null) this.queueWait.observe(Math.max(0, (Number(t.start_ts) - Number(t.create_ts)) / 1000));
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

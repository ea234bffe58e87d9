/**
 * The console's node feed: heartbeats and status changes of the whole fleet are gathered for one interval and
 * handed on as one `nodes.changed` event holding each changed node's latest state. Consoles then receive at most
 * one node event per interval, however many nodes beat; each console's stream keeps the nodes its screen shows
 * (tasks.stream.ts). Nothing is gathered while no console listens.
 */
import type { EventBus, NodeChangeEntry, NodeHeartbeatEvent, NodeStatusEvent } from '../../events.ts';
import type { JobHandle, JobRunner } from '../../jobs/job-runner.ts';

/** How often the gathered node changes go out to the consoles. */
export const NODE_FEED_INTERVAL_MS = 1000;

export class NodeFeed {
  private changes = new Map<string, NodeChangeEntry>();
  private statusChanged: string[] = [];
  private job: JobHandle | undefined;

  constructor(
    private readonly events: EventBus,
    readonly intervalMs = NODE_FEED_INTERVAL_MS,
  ) {}

  private readonly onHeartbeat = (ev: NodeHeartbeatEvent) => {
    if (!this.listened()) return;
    const entry = this.entry(ev.nodeId, ev.status);
    entry.heartbeat = { ts: ev.ts, metrics: ev.metrics };
  };

  private readonly onStatus = (ev: NodeStatusEvent) => {
    if (!this.listened()) return;
    const entry = this.entry(ev.nodeId, ev.status);
    if (!entry.statusChanged) {
      entry.statusChanged = true;
      this.statusChanged.push(ev.nodeId);
    }
  };

  /** Listens, and sends what the interval gathered as the `node-feed` job. */
  start(jobs: JobRunner): void {
    this.events.on('node.heartbeat', this.onHeartbeat);
    this.events.on('node.status', this.onStatus);
    this.job ??= jobs.every({ name: 'node-feed', everyMs: this.intervalMs, run: () => this.flush() });
  }

  async close(): Promise<void> {
    await this.job?.stop();
    this.events.off('node.heartbeat', this.onHeartbeat);
    this.events.off('node.status', this.onStatus);
  }

  private listened(): boolean {
    return this.events.listenerCount('nodes.changed') > 0;
  }

  /** The node's entry of this interval; its status is always the latest heard. */
  private entry(nodeId: string, status: NodeChangeEntry['status']): NodeChangeEntry {
    let e = this.changes.get(nodeId);
    if (!e) {
      e = { nodeId, status, statusChanged: false };
      this.changes.set(nodeId, e);
    }
    e.status = status;
    return e;
  }

  /** Hands the interval's changes on, if there were any. */
  flush(now = Date.now()): void {
    if (!this.changes.size) return;
    const changes = this.changes;
    const statusChanged = this.statusChanged;
    this.changes = new Map();
    this.statusChanged = [];
    this.events.emit('nodes.changed', { ts: now, changes, statusChanged });
  }
}

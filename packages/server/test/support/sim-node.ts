/**
 * A simulated node: speaks the real node protocol over a real WebSocket to a master, without running processes.
 * Many fit in one process, so tests and the fleet benchmark can count what the master does per heartbeat and per
 * dispatched task at fleet sizes no machine could host as real node services.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import {
  NODE_ID_HEADER,
  NODE_KEY_HEADER,
  PROTOCOL_VERSION,
  parseMessage,
  type MasterToNode,
  type NodeMetrics,
  type NodeToMaster,
  type TaskAssignment,
} from '@crawldeck/shared';

export interface SimNodeOptions {
  master: string;
  key: string;
  name?: string;
  /** The node's id; default: a random one (a benchmark that seeds the store picks them). */
  nodeId?: string;
  maxRunners?: number;
  /** What to do with an assigned task; default: keep it (the test finishes it). */
  onAssign?: (node: SimNode, task: TaskAssignment) => void;
  /** The key the master gave this node when it joined before: a node that comes back presents it. */
  ownKey?: string;
}

export class SimNode {
  readonly nodeId: string;
  readonly assigned: TaskAssignment[] = [];
  private ws: WebSocket | undefined;
  private beats = 0;
  /** The node's own key, given by the master when it joined with the shared key. */
  ownKey: string | undefined;

  constructor(private readonly opts: SimNodeOptions) {
    this.nodeId = opts.nodeId ?? randomBytes(12).toString('hex');
    this.ownKey = opts.ownKey;
  }

  /** The key the node presents: its own once it has one, else the shared key (which only joins). */
  get key(): string {
    return this.ownKey ?? this.opts.key;
  }

  /** Connects and registers; resolves once the master confirmed (rejects when it closes the socket first). */
  connect(): Promise<void> {
    const ws = new WebSocket(this.opts.master.replace(/^http/, 'ws') + '/api/nodes/connect', {
      headers: { [NODE_KEY_HEADER]: this.key },
    });
    this.ws = ws;
    return new Promise((resolve, reject) => {
      ws.on('error', reject);
      ws.on('close', (code, reason) => reject(new Error(`closed ${code} ${reason.toString()}`)));
      ws.on('open', () =>
        this.send({
          type: 'register',
          protocol: PROTOCOL_VERSION,
          nodeId: this.nodeId,
          name: this.opts.name ?? `sim-${this.nodeId.slice(-6)}`,
          nodeType: 'worker',
          maxRunners: this.opts.maxRunners ?? 4,
          systemInfo: { os: 'linux', arch: 'x64', num_cpu: 2, hostname: 'sim', executables: [], python: '' },
          tasks: [],
        }),
      );
      ws.on('message', (data) => {
        const msg = parseMessage<MasterToNode>(data.toString());
        if (!msg) return;
        if (msg.type === 'registered') {
          if (msg.key) this.ownKey = msg.key;
          resolve();
        }
        if (msg.type === 'credential') this.ownKey = msg.key;
        if (msg.type === 'task.assign') {
          this.assigned.push(msg.task);
          this.opts.onAssign?.(this, msg.task);
        }
      });
    });
  }

  send(msg: NodeToMaster): void {
    this.ws?.send(JSON.stringify(msg));
  }

  heartbeat(metrics: Partial<NodeMetrics> = {}): void {
    this.beats++;
    const m: NodeMetrics = {
      cpu: 10 + (this.beats % 7),
      mem: 40,
      disk: 50,
      mem_total: 1 << 30,
      disk_total: 1 << 34,
      running: 0,
      ...metrics,
    };
    this.send({ type: 'heartbeat', metrics: m, running: [] });
  }

  started(taskId: string): void {
    this.send({ type: 'task.started', taskId, pid: 1000, cmd: 'sim', startTs: Date.now() });
  }

  /** The node's final word on a task; `finishTs` is when its process ended by the node's clock. */
  finished(taskId: string, logLines = 0, items = 0, finishTs = Date.now()): void {
    this.send({
      type: 'task.finished',
      taskId,
      status: 'finished',
      exitCode: 0,
      error: '',
      logLines,
      items,
      finishTs,
    });
  }

  /** Ships log lines of a task over the node API, as a node's spool does. */
  async shipLogs(taskId: string, from: number, lines: string[]): Promise<number> {
    const r = await fetch(`${this.opts.master}/api/node-api/tasks/${taskId}/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [NODE_KEY_HEADER]: this.key, [NODE_ID_HEADER]: this.nodeId },
      body: JSON.stringify({ from, lines }),
    });
    const body = (await r.json()) as { data?: { acked: number } };
    if (r.status !== 200 || !body.data) throw new Error(`ship logs: ${r.status}`);
    return body.data.acked;
  }

  close(): void {
    this.ws?.terminate();
  }
}

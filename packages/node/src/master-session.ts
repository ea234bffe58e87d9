/**
 * The node's control connection to its master: one WebSocket, registered with the tasks the node holds, the
 * master's messages dispatched, heartbeats with the node's metrics, and reconnects with backoff when it breaks, to
 * the next of the masters the node knows.
 */
import WebSocket from 'ws';
import {
  PROTOCOL_VERSION,
  parseMessage,
  type MasterToNode,
  type NodeToMaster,
  type NodeType,
  type SystemInfo,
} from '@crawldeck/shared';
import type { MetricsSampler } from './system.ts';
import type { MasterHttp } from './master-http.ts';
import type { Assignments, NodeLimits, NodeLog } from './assignments.ts';
import type { EnvJobRunner } from './environments/jobs.ts';
import type { NodeKeys } from './credential.ts';

export interface SessionIdentity {
  nodeId: string;
  name: string;
  nodeType: NodeType;
  info: SystemInfo;
}

export class MasterSession {
  private ws: WebSocket | undefined;
  private registered = false;
  private stopped = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private attempts = 0;
  /** Why the master refused the node key, once it has. */
  private refusedKey: string | undefined;
  /** Set once the assignments exist (they send through this session). */
  tasks!: Assignments;

  constructor(
    private me: SessionIdentity,
    private master: MasterHttp,
    private limits: NodeLimits,
    private sampler: MetricsSampler,
    private envJobs: EnvJobRunner,
    private log: NodeLog,
    private keys: NodeKeys,
    /** The master refused the node key: the session has stopped and will not connect again. */
    private onRefused: (reason: string) => void = () => undefined,
  ) {}

  /** Sends a message when the socket is open and registered (the register message itself before that). */
  send(msg: NodeToMaster): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || (!this.registered && msg.type !== 'register')) return false;
    ws.send(JSON.stringify(msg));
    return true;
  }

  connect(): void {
    if (this.stopped) return;
    const url = this.master.base.replace(/^http/, 'ws') + '/api/nodes/connect';
    const socket = new WebSocket(url, { headers: this.master.headers });
    this.ws = socket;
    this.registered = false;
    socket.on('open', () => this.register());
    socket.on('message', (data) => {
      const msg = parseMessage<MasterToNode>(data.toString());
      try {
        if (msg) this.handle(msg);
      } catch (err) {
        this.log('error', 'master message failed', { type: msg?.type, err: String(err) });
      }
    });
    // A master that answers the upgrade itself with 401 / 403 (or a proxy in front of it) refuses the key.
    socket.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      if (status === 401 || status === 403)
        this.refusedKey = `the master answered ${status} ${res.statusMessage ?? ''}`;
      socket.terminate();
    });
    socket.on('close', (code, reason) => this.closed(socket, code, reason.toString()));
    socket.on('error', (err) => this.log('debug', 'connection error', { err: err.message }));
  }

  stop(): void {
    this.stopped = true;
    this.stopHeartbeat();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.ws?.close();
  }

  private register(): void {
    const tasks = [...this.tasks.runs.values()].map((r) => ({
      taskId: r.taskId,
      state: r.state === 'done' ? ('done' as const) : ('running' as const),
      pid: r.pid,
    }));
    const { nodeId, name, nodeType, info } = this.me;
    const maxRunners = this.limits.maxRunners;
    this.send({
      type: 'register',
      protocol: PROTOCOL_VERSION,
      nodeId,
      name,
      nodeType,
      maxRunners,
      systemInfo: info,
      tasks,
    });
  }

  private closed(socket: WebSocket, code: number, reason: string): void {
    if (this.ws === socket) {
      this.registered = false;
      this.stopHeartbeat();
    }
    if (this.stopped) return;
    if (code === 4401 || code === 4403) this.refusedKey = reason || `closed with ${code}`;
    if (this.refusedKey !== undefined && this.keys.fallBack()) {
      this.log('warn', `master refused the node's own key (${this.refusedKey}): joining with the shared key`);
      this.refusedKey = undefined;
      this.connect();
      return;
    }
    if (this.refusedKey !== undefined) {
      // Trying again cannot help: the key is wrong until someone changes it. A master that is down is retried.
      this.stopped = true;
      this.log('error', `master refused the node key: ${this.refusedKey}`);
      this.onRefused(this.refusedKey);
      return;
    }
    // Reconnect with capped exponential backoff and jitter, to the next master of the list: a master that is gone
    // (killed, its host down) leaves its nodes to the others sharing its store. Shipping continues over HTTP, to the
    // master the node is moving to.
    this.master.moveOn();
    const delay = Math.min(4000, 250 * 2 ** Math.min(this.attempts++, 5)) * (0.75 + Math.random() * 0.5);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private onRegistered(msg: Extract<MasterToNode, { type: 'registered' }>): void {
    if (msg.key) this.keepKey(msg.key);
    this.registered = true;
    this.attempts = 0;
    this.limits.enabled = msg.enabled;
    this.limits.maxRunners = msg.maxRunners;
    this.stopHeartbeat();
    const beat = () => {
      const running = this.tasks.active();
      this.send({
        type: 'heartbeat',
        metrics: this.sampler.sample(running.length),
        running: running.map((r) => r.taskId),
      });
    };
    beat();
    this.heartbeat = setInterval(beat, msg.heartbeatMs);
    this.heartbeat.unref();
    this.tasks.resendFinished();
    this.log('info', 'registered with master', { nodeId: this.me.nodeId, master: this.master.base });
    this.envJobs.wake();
  }

  /** The master gave the node its own key: kept in the data dir and used for every call from now on. */
  private keepKey(key: string): void {
    try {
      this.keys.keep(key);
      this.log('info', 'the master gave this node its own key; it is kept in the data dir');
    } catch (err) {
      // Not kept: the node goes on with the key in memory, and says so (after a restart it will be refused).
      this.log('error', "this node's own key could not be kept in the data dir", { err: String(err) });
    }
  }

  private handle(msg: MasterToNode): void {
    switch (msg.type) {
      case 'registered':
        return this.onRegistered(msg);
      case 'config':
        this.limits.enabled = msg.enabled;
        this.limits.maxRunners = msg.maxRunners;
        return;
      case 'task.assign':
        return this.tasks.assign(msg.task);
      case 'task.cancel':
        return this.tasks.cancel(msg.taskId);
      case 'task.finished.ack':
        return this.tasks.forget(msg.taskId);
      case 'task.drop':
        return this.tasks.forget(msg.taskId, 'SIGKILL');
      case 'error':
        this.log('warn', `master says: ${msg.message}`);
        return;
      case 'env.wake':
        this.envJobs.wake();
        return;
      case 'credential':
        return this.keepKey(msg.key);
      default: {
        const never: never = msg;
        void never;
      }
    }
  }
}

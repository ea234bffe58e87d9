/**
 * The one owner of task execution on the master: node sessions and the protocol switch live here, with dispatch
 * (dispatch.ts), offline detection (offline-sweep.ts), heartbeat storage (heartbeats.ts) and the agreement of a
 * node and the store after a reconnect (reconcile.ts) beside it. Task status
 * changes go through the tasks feature's transitions (task-state.store.ts); this module emits the events they
 * return. One runtime per app.
 */
import type { WebSocket } from 'ws';
import {
  EMPTY_ID,
  PROTOCOL_VERSION,
  parseMessage,
  type MasterToNode,
  type NodeToMaster,
  type TaskAssignment,
} from '@crawldeck/shared';
import type { CoreContext } from '../../context.ts';
import type { NodeHeartbeatEvent, TaskStatusEvent } from '../../events.ts';
import { checkpointCaughtUp } from '../../store/checkpoint-wait.ts';
import { isStoreUnavailable } from '../../store/db.ts';
import { globalEnv, spiderForTask, spiderManifest, taskLimitsFor } from './spider-source.ts';
import { TaskBus, type BusMessage } from './task-bus.ts';
import { TaskFeed } from './task-feed.ts';
import * as state from './task-state.store.ts';
import { Dispatcher } from './dispatch.ts';
import { HeartbeatRecorder, METRICS_RETENTION_MS } from './heartbeats.ts';
import { NodeFeed } from './node-feed.ts';
import { OfflineSweep } from './offline-sweep.ts';
import { insertDeploy } from './node-state.store.ts';
import { SessionTable, statusOf, type Session } from './sessions.ts';
import { NodeLifecycle } from './lifecycle.ts';
import { IngestOrder } from './ingest-order.ts';
import { reconcile, registerAgain } from './reconcile.ts';
import { itemLimitFor } from '../datasources/item-limit.service.ts';
import { joinKey, type NodeCaller } from '../nodes/credentials.ts';
import { admitNode, taskIsOwn } from './node-admission.ts';
import { envSettingsVersion } from '../environments/settings-version.ts';

type Register = Extract<NodeToMaster, { type: 'register' }>;

export class TaskRuntime {
  readonly sessions = new SessionTable();
  readonly dispatcher: Dispatcher;
  readonly heartbeats: HeartbeatRecorder;
  readonly sweep: OfflineSweep;
  readonly feed: NodeFeed;
  /** The console's task feed: status changes gathered per interval (task-feed.ts). */
  readonly taskFeed: TaskFeed;
  /** Batches of one task's logs or items are stored in the order the node sent them (ingest-order.ts). */
  readonly ingestOrder: IngestOrder;
  private readonly lifecycle: NodeLifecycle;
  private readonly bus: TaskBus;
  private closed = false;

  constructor(private readonly ctx: CoreContext) {
    const { nodeOfflineMs, nodeHeartbeatMs } = ctx.config;
    this.bus = new TaskBus(ctx, (m) => this.onBusMessage(m));
    this.ingestOrder = new IngestOrder(ctx.config.ingestWaitMs);
    this.heartbeats = new HeartbeatRecorder(
      ctx.store.db,
      ctx.log,
      Math.max(100, Math.min(nodeHeartbeatMs, nodeOfflineMs / 4)),
      METRICS_RETENTION_MS,
      () => checkpointCaughtUp(ctx.store),
    );
    this.feed = new NodeFeed(ctx.events);
    this.taskFeed = new TaskFeed(ctx.events);
    this.lifecycle = new NodeLifecycle(ctx, this.sessions, (ev) => this.emit(ev));
    this.sweep = new OfflineSweep(
      nodeOfflineMs,
      (id) => this.nodeWentAway(id),
      ctx.log,
      ctx.jobs,
      () => this.silentNodesGoOffline(),
    );
    this.dispatcher = new Dispatcher({
      db: ctx.store.db,
      log: ctx.log,
      sessions: this.sessions,
      assign: (s, taskId) => this.assign(s, taskId),
      statusMayHaveChanged: (nodeId) => this.lifecycle.saveStatus(nodeId),
    });
  }

  get offlineMs(): number {
    return this.sweep.offlineMs;
  }

  private get db() {
    return this.ctx.store.db;
  }

  /** A notice from another master (PostgreSQL only): act on it where this master holds the node. */
  private onBusMessage(m: BusMessage): void {
    switch (m.type) {
      case 'dispatch':
        this.dispatcher.schedule();
        return;
      case 'cancel':
        this.sessions.sendTo(m.nodeId, { type: 'task.cancel', taskId: m.taskId });
        return;
      case 'drop':
        this.dropLocal(m.taskId, m.nodeId);
        return;
      case 'cut':
        this.sessions.get(m.nodeId)?.socket.terminate();
        return;
      case 'env.wake':
        for (const id of m.nodeIds) this.sessions.sendTo(id, { type: 'env.wake' });
        return;
    }
  }

  private emit(ev: TaskStatusEvent | undefined): void {
    if (ev) this.ctx.events.emit('task.status', ev);
  }

  /** Starts the runtime's loops; the offline clock waits for `acceptNodes`. */
  async start(): Promise<void> {
    this.heartbeats.start(this.ctx.jobs);
    this.feed.start(this.ctx.jobs);
    this.taskFeed.start();
    await this.bus.start();
    // Tasks that were claimed but never reached a node before the restart go back to the queue once nodes report.
    this.dispatcher.schedule();
  }

  /**
   * The master accepts node connections now (it listens): the offline clock starts here, not while the app was
   * being built (lifecycle.ts).
   */
  acceptNodes(): Promise<void> {
    return this.lifecycle.watchFromNow(this.sweep, () => this.closed);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.dispatcher.close();
    await this.bus.close();
    await this.sweep.close();
    await this.feed.close();
    this.taskFeed.close();
    await this.heartbeats.close();
    this.sessions.closeAll();
  }

  /**
   * The node's key was revoked: its socket is cut on every master (it reconnects and is refused), its tasks are
   * left alone (they end as lost only when the node stays away past its window, as for any node that went away).
   */
  async cutNode(nodeId: string): Promise<void> {
    this.sessions.get(nodeId)?.socket.terminate();
    await this.bus.publish({ type: 'cut', nodeId });
  }

  /** Gives a connected node its new key; false when this master does not hold its socket. */
  sendKey(nodeId: string, key: string): boolean {
    return this.sessions.sendTo(nodeId, { type: 'credential', key });
  }

  /** Tells live views about a task's current state (e.g. just created). */
  async emitStatus(taskId: string): Promise<void> {
    this.emit(await state.taskStatusEvent(this.db, taskId));
  }

  /** Node status rows written so far (heartbeats alone write none). */
  get statusWrites(): number {
    return this.lifecycle.statusWrites;
  }

  /** Whether this master still waits for the node's offline window to run out. */
  offlinePending(nodeId: string): boolean {
    return this.sweep.pending(nodeId);
  }

  /** A node's live status where this master holds it (undefined: ask the store). */
  liveSession(nodeId: string): Session | undefined {
    return this.sessions.get(nodeId);
  }

  // ---------------------------------------------------------------- the protocol switch

  /**
   * A node's WebSocket: first message must be `register`; messages of one node are handled in order. `caller`: the
   * node whose own key opened the socket, or a new node joining with the shared key.
   */
  attach(socket: WebSocket, ip: string, caller: NodeCaller): void {
    let session: Session | undefined;
    // Once registered, the socket speaks for that node: a joining node registers again with the key it was given.
    let who = caller;
    let chain: Promise<void> = Promise.resolve();
    socket.on('message', (data) => {
      const msg = parseMessage<NodeToMaster>(data.toString());
      if (!msg) return;
      chain = chain
        .then(async () => {
          if (msg.type === 'register') {
            session = (await this.register(socket, ip, msg, who)) ?? session;
            if (session) who = { kind: 'node', nodeId: session.nodeId };
            return;
          }
          if (!session) {
            socket.send(JSON.stringify({ type: 'error', message: 'register first' } satisfies MasterToNode));
            return;
          }
          await this.handle(session, msg);
        })
        .catch((err: unknown) => {
          this.ctx.log.error({ err, type: msg.type }, 'node message failed');
          if (isStoreUnavailable(err) && msg.type !== 'heartbeat') registerAgain(socket);
        });
    });
    socket.on('close', () => {
      if (session && this.sessions.get(session.nodeId)?.socket === socket) {
        this.sessions.delete(session.nodeId);
        // Not offline yet: a node that reconnects within the offline window keeps its tasks running.
        void this.lifecycle.saveStatus(session.nodeId).catch(() => undefined);
      }
    });
    socket.on('error', () => undefined);
  }

  private async register(
    socket: WebSocket,
    ip: string,
    msg: Register,
    caller: NodeCaller,
  ): Promise<Session | undefined> {
    if (msg.protocol !== PROTOCOL_VERSION) throw new Error(`node protocol ${msg.protocol} is not supported`);
    if (!(await admitNode(this.ctx, socket, msg, caller))) return undefined;
    const session = await this.lifecycle.register(socket, ip, msg);
    this.sweep.heard(msg.nodeId);
    await reconcile(this.db, this.sessions, session, msg.tasks, (ev) => this.emit(ev));
    // The joining node's own key, issued last: a registration that fails before this leaves the node free to join.
    const joined = caller.kind === 'joining' ? await joinKey(this.db, msg.nodeId) : undefined;
    if (joined && 'refused' in joined) {
      if (this.sessions.get(msg.nodeId)?.socket === socket) this.sessions.delete(msg.nodeId);
      socket.close(4403, joined.refused);
      return undefined;
    }
    this.sessions.send(session, {
      type: 'registered',
      nodeId: msg.nodeId,
      heartbeatMs: this.ctx.config.nodeHeartbeatMs,
      enabled: session.enabled,
      maxRunners: session.maxRunners,
      ...(joined ? { key: joined.key } : {}),
    });
    await this.lifecycle.saveStatus(msg.nodeId);
    this.ctx.log.info({ nodeId: msg.nodeId, type: msg.nodeType, reported: msg.tasks.length }, 'node registered');
    this.dispatcher.schedule();
    return session;
  }

  private async handle(s: Session, msg: NodeToMaster): Promise<void> {
    const now = Date.now();
    this.sweep.heard(s.nodeId, now);
    s.lastSeenTs = now;
    if ('taskId' in msg && msg.type !== 'task.accepted' && !(await taskIsOwn(this.db, s.nodeId, msg.taskId))) {
      this.sessions.send(s, { type: 'error', message: `task ${msg.taskId} belongs to another node` });
      return;
    }
    switch (msg.type) {
      case 'register':
      case 'task.accepted':
        return;
      case 'heartbeat':
        return this.heartbeat(s, msg, now);
      case 'task.rejected':
        s.removeTask(msg.taskId);
        s.setPaused(true);
        await state.unassignTask(this.db, msg.taskId);
        await this.lifecycle.saveStatus(s.nodeId);
        this.dispatcher.schedule();
        return;
      case 'task.deployed':
        await insertDeploy(this.db, { ...msg, nodeId: s.nodeId }).catch((err: unknown) =>
          this.ctx.log.warn({ err }, 'deploy record not stored (spider deleted?)'),
        );
        return;
      case 'task.started': {
        const r = await state.startTask(this.db, msg.taskId, msg);
        this.emit(r.event);
        if (r.event) return;
        if (!r.current) this.sessions.send(s, { type: 'task.drop', taskId: msg.taskId });
        else if (r.current === 'cancelled') this.sessions.send(s, { type: 'task.cancel', taskId: msg.taskId });
        return;
      }
      case 'task.finished':
        return this.finished(s, msg);
    }
  }

  private heartbeat(s: Session, msg: Extract<NodeToMaster, { type: 'heartbeat' }>, now: number): Promise<void> {
    if (s.paused) {
      s.setPaused(false);
      this.dispatcher.schedule();
    }
    s.metrics = msg.metrics;
    this.heartbeats.record(s.nodeId, msg.metrics, s.active.size, now);
    this.ctx.events.emit('node.heartbeat', {
      nodeId: s.nodeId,
      status: statusOf(s),
      ts: now,
      metrics: msg.metrics,
    } satisfies NodeHeartbeatEvent);
    return this.lifecycle.saveStatus(s.nodeId);
  }

  private async finished(s: Session, msg: Extract<NodeToMaster, { type: 'task.finished' }>): Promise<void> {
    s.removeTask(msg.taskId);
    if (s.paused) s.setPaused(false);
    const r = await state.finishTask(this.db, msg.taskId, msg);
    if (r) {
      if (r.logLines < msg.logLines || r.items < msg.items) {
        this.ctx.log.error(
          { taskId: msg.taskId, stored: r.logLines, reported: msg.logLines },
          'node finished a task with unshipped data',
        );
      }
      this.emit(r.event);
    }
    this.sessions.send(s, { type: 'task.finished.ack', taskId: msg.taskId });
    await this.lifecycle.saveStatus(s.nodeId);
    this.dispatcher.schedule();
  }

  // ---------------------------------------------------------------- commands from the API

  /** Cancels a task: a pending one at once, a running one by asking its node (the final report follows). */
  async cancel(taskId: string): Promise<boolean> {
    const r = await state.cancelTask(this.db, taskId);
    if (!r) return false;
    const nodeId = r.event.nodeId;
    if (r.wasOnNode && !this.sessions.sendTo(nodeId, { type: 'task.cancel', taskId })) {
      const s = this.sessions.get(nodeId);
      if (s) s.removeTask(taskId);
      // The node may hold its connection to another master.
      if (!this.sessions.has(nodeId)) await this.bus.publish({ type: 'cancel', taskId, nodeId });
    }
    this.emit(r.event);
    return true;
  }

  /** Fails a running task whose results are refused for good: it ends with the reason, its node stops it. */
  async failRunning(taskId: string, error: string): Promise<void> {
    const event = await state.failRunningTask(this.db, taskId, error);
    if (!event) return;
    this.emit(event);
    if (event.nodeId && event.nodeId !== EMPTY_ID) this.drop(taskId, event.nodeId);
  }

  /** Tells a node to stop and forget a deleted task (through another master when the node is connected there). */
  drop(taskId: string, nodeId: string): void {
    if (!this.sessions.has(nodeId)) {
      void this.bus.publish({ type: 'drop', taskId, nodeId });
      return;
    }
    this.dropLocal(taskId, nodeId);
  }

  private dropLocal(taskId: string, nodeId: string): void {
    const s = this.sessions.get(nodeId);
    if (!s) return;
    this.sessions.send(s, { type: 'task.drop', taskId });
    if (s.removeTask(taskId)) {
      void this.lifecycle.saveStatus(nodeId).catch(() => undefined);
      this.dispatcher.schedule();
    }
  }

  async setNodeConfig(nodeId: string, enabled: boolean, maxRunners: number): Promise<void> {
    const s = this.sessions.get(nodeId);
    if (s) {
      s.configure(enabled, maxRunners);
      this.sessions.send(s, { type: 'config', enabled, maxRunners });
    }
    await this.lifecycle.saveStatus(nodeId);
    this.dispatcher.schedule();
  }

  /** New pending tasks: dispatch here, and wake the other masters, whose nodes may have free slots. */
  async tasksCreated(): Promise<void> {
    this.dispatcher.schedule();
    await this.bus.publish({ type: 'dispatch' });
  }

  /**
   * A node's window ran out: it goes offline (lifecycle.ts), and dispatch looks again, since the master's own node
   * may now be open to normal users' tasks.
   */
  private async nodeWentAway(nodeId: string): Promise<void> {
    await this.lifecycle.expire(nodeId, this.sweep);
    this.dispatcher.schedule();
  }

  /** Nodes of a master that is gone, which no master hears any more, go offline (one master does it). */
  private async silentNodesGoOffline(): Promise<void> {
    // The master's own node may now be open to normal users' tasks (as when a node's window runs out here).
    if ((await this.lifecycle.sweepStore(this.sweep)) > 0) this.dispatcher.schedule();
  }

  /** Environment jobs or new index settings wait for these nodes: each is told by the master it is connected to. */
  async wakeEnvironments(nodeIds: string[]): Promise<void> {
    const elsewhere = nodeIds.filter((id) => !this.sessions.sendTo(id, { type: 'env.wake' }));
    if (elsewhere.length) await this.bus.publish({ type: 'env.wake', nodeIds: elsewhere });
  }

  /** Wakes dispatch (a setting that decides where tasks may run changed). */
  scheduleDispatch(): void {
    this.dispatcher.schedule();
  }

  /** Sends a claimed task to its node; a task that cannot be sent goes back to the queue. */
  private async assign(s: Session, taskId: string): Promise<void> {
    try {
      await this.sendAssignment(s, taskId);
    } catch (err) {
      // Claimed but maybe never sent: registering again puts the claim back in the queue (reconcile).
      if (isStoreUnavailable(err)) registerAgain(s.socket);
      throw err;
    }
  }

  private async sendAssignment(s: Session, taskId: string): Promise<void> {
    const t = await state.taskForAssignment(this.db, taskId);
    if (!t) return;
    const spider = await spiderForTask(this.db, t.spider_id);
    if (!spider) {
      s.removeTask(taskId);
      this.emit(await state.failTask(this.db, taskId, 'spider not found'));
      return;
    }
    const task: TaskAssignment = {
      taskId,
      spiderId: spider.id,
      spiderName: spider.name,
      cmd: t.cmd || spider.cmd,
      param: t.param,
      ...(spider.src ? { src: spider.src } : {}),
      collection: spider.collection,
      isDedup: spider.isDedup,
      dedupField: spider.dedupField,
      dedupMethod: spider.dedupMethod,
      env: { ...(await globalEnv(this.db)), ...spider.envs },
      files: await spiderManifest(this.db, spider.id),
      limits: taskLimitsFor(this.ctx.config.taskLimits, spider.limits),
      timeoutSeconds: t.timeout_seconds ?? spider.limits.timeout_seconds,
      itemLimit: await itemLimitFor(this.ctx, taskId),
      envSettingsVersion: await envSettingsVersion(this.db),
    };
    if (!this.closed && this.sessions.send(s, { type: 'task.assign', task })) return;
    s.removeTask(taskId);
    await state.unassignTask(this.db, taskId);
  }
}

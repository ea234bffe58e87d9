/**
 * The master's side of task execution: connected node sessions, push dispatch, status transitions,
 * offline detection and reconciliation. One runtime per app (kept in a WeakMap keyed by the AppContext).
 */
import type { WebSocket } from 'ws';
import {
  EMPTY_ID,
  PROTOCOL_VERSION,
  newId,
  parseMessage,
  type MasterToNode,
  type NodeMetrics,
  type NodeToMaster,
  type NodeStatus,
  type TaskAssignment,
} from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { NodeHeartbeatEvent, NodeStatusEvent, TaskStatusEvent } from '../../events.ts';
import { globalEnv, spiderForTask, spiderManifest } from './spider-source.ts';
import { TaskBus, type BusMessage } from './task-bus.ts';
import { isStoreUnavailable } from '../../store/db.ts';
import { masterNodeClosedToUsers } from './master-node.ts';

// The payloads of the events this runtime emits are declared with the event map; re-exported for existing imports.
export type { LogEvent, NodeHeartbeatEvent, NodeStatusEvent, TaskStatusEvent } from '../../events.ts';

interface Session {
  nodeId: string;
  socket: WebSocket;
  enabled: boolean;
  maxRunners: number;
  /** Tasks claimed for or running on this node, as the master sees them. */
  active: Set<string>;
  /** The node refused a task (full by its own count): no new work until it reports in again. */
  paused: boolean;
  /** The master's own node: normal users' tasks may be kept off it (master-node.ts). */
  isMaster: boolean;
}

const ACTIVE_FOR_NODE = ['running'] as const;

export function nodeOfflineMs(): number {
  const s = Number(process.env.CRAWLDECK_NODE_OFFLINE_SECONDS ?? 10);
  return (Number.isFinite(s) && s > 0 ? s : 10) * 1000;
}
export function heartbeatMs(): number {
  const s = Number(process.env.CRAWLDECK_NODE_HEARTBEAT_SECONDS ?? 2);
  return (Number.isFinite(s) && s > 0 ? s : 2) * 1000;
}

export class TaskRuntime {
  readonly sessions = new Map<string, Session>();
  private offlineTimers = new Map<string, NodeJS.Timeout>();
  private dispatchRunning = false;
  private dispatchAgain = false;
  private closed = false;
  private heartbeatCount = 0;
  readonly offlineMs = nodeOfflineMs();

  private readonly bus: TaskBus;

  constructor(private ctx: AppContext) {
    this.bus = new TaskBus(ctx, (m) => this.onBusMessage(m));
  }

  /** A notice from another master (PostgreSQL only): act on it where this master holds the node. */
  private onBusMessage(m: BusMessage): void {
    switch (m.type) {
      case 'dispatch':
        this.scheduleDispatch();
        return;
      case 'cancel':
        this.sendTo(m.nodeId, { type: 'task.cancel', taskId: m.taskId });
        return;
      case 'drop':
        this.dropLocal(m.taskId, m.nodeId);
        return;
    }
  }

  private get db() {
    return this.ctx.store.db;
  }

  // ---------------------------------------------------------------- start / stop

  /** After a master (re)start, nodes that were online get one offline timeout to reconnect. */
  async start(): Promise<void> {
    // Also nodes marked offline that still have running tasks (e.g. after a graceful master stop): if they do not
    // come back, those tasks must still end abnormal.
    const rows = await this.db.selectFrom('nodes').select('id').where('status', '!=', 'offline').execute();
    const busy = await this.db.selectFrom('tasks').select('node_id').distinct().where('status', '=', 'running').execute();
    for (const id of new Set([...rows.map((r) => r.id), ...busy.map((b) => b.node_id)])) this.armOffline(id);
    await this.bus.start();
    // Tasks that were claimed but never reached a node before the restart go back to the queue once nodes report.
    this.scheduleDispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.bus.close();
    for (const t of this.offlineTimers.values()) clearTimeout(t);
    this.offlineTimers.clear();
    for (const s of this.sessions.values()) s.socket.close(1001, 'master shutting down');
    this.sessions.clear();
  }

  // ---------------------------------------------------------------- events

  async emitStatus(taskId: string, repeat = false): Promise<void> {
    const t = await this.db.selectFrom('tasks').select(['id', 'status', 'spider_id', 'node_id', 'schedule_id', 'parent_id', 'error']).where('id', '=', taskId).executeTakeFirst();
    if (!t) return;
    const ev: TaskStatusEvent = { taskId: t.id, status: t.status, spiderId: t.spider_id, nodeId: t.node_id, scheduleId: t.schedule_id, parentId: t.parent_id, error: t.error, ...(repeat ? { repeat } : {}) };
    this.ctx.events.emit('task.status', ev);
  }

  // ---------------------------------------------------------------- node sessions

  private send(s: Session, msg: MasterToNode): boolean {
    if (s.socket.readyState !== 1) return false;
    s.socket.send(JSON.stringify(msg));
    return true;
  }

  sendTo(nodeId: string, msg: MasterToNode): boolean {
    const s = this.sessions.get(nodeId);
    return s ? this.send(s, msg) : false;
  }

  statusOf(s: Session | undefined): NodeStatus {
    if (!s) return 'offline';
    return !s.enabled || s.active.size >= s.maxRunners ? 'unavailable' : 'online';
  }

  private async saveStatus(nodeId: string): Promise<void> {
    const s = this.sessions.get(nodeId);
    await this.db
      .updateTable('nodes')
      .set({ status: this.statusOf(s), running: s?.active.size ?? 0, update_ts: Date.now() })
      .where('id', '=', nodeId)
      .execute();
    this.ctx.events.emit('node.status', { nodeId, status: this.statusOf(s) } satisfies NodeStatusEvent);
  }

  private armOffline(nodeId: string): void {
    const old = this.offlineTimers.get(nodeId);
    if (old) clearTimeout(old);
    const timer = setTimeout(() => {
      this.offlineTimers.delete(nodeId);
      void this.markOffline(nodeId).catch((err: unknown) => {
        this.ctx.log.error({ err, nodeId }, 'marking node offline failed');
        // The store is away (PostgreSQL restarting): decide again later rather than never.
        if (isStoreUnavailable(err)) this.armOffline(nodeId);
      });
    }, this.offlineMs);
    timer.unref();
    this.offlineTimers.set(nodeId, timer);
  }

  /** Whether this master still waits for the node's offline window to run out. */
  offlinePending(nodeId: string): boolean {
    return this.offlineTimers.has(nodeId);
  }

  /** Heartbeats stopped: the node is offline and its running tasks are abnormal. */
  private async markOffline(nodeId: string): Promise<void> {
    if (this.closed) return;
    // Heartbeats reach whichever master the node is connected to and all of them update last_seen_ts: another
    // master sharing the store may still be hearing from this node.
    const seen = await this.db.selectFrom('nodes').select('last_seen_ts').where('id', '=', nodeId).executeTakeFirst();
    if (!this.sessions.has(nodeId) && seen?.last_seen_ts != null && Date.now() - seen.last_seen_ts < this.offlineMs - 50) {
      this.armOffline(nodeId);
      return;
    }
    const s = this.sessions.get(nodeId);
    if (s) {
      this.sessions.delete(nodeId);
      s.socket.terminate();
    }
    // Recorded once per offline transition, by one master even when several share the store: only the one that
    // sets offline_ts announces it.
    const claim = await this.db.updateTable('nodes').set({ offline_ts: Date.now() }).where('id', '=', nodeId).where('offline_ts', 'is', null).executeTakeFirst();
    await this.db.updateTable('nodes').set({ status: 'offline', running: 0, update_ts: Date.now() }).where('id', '=', nodeId).execute();
    const lost = await this.db
      .selectFrom('tasks')
      .select(['id', 'status'])
      .where('node_id', '=', nodeId)
      .where((eb) => eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'pending'), eb('assign_ts', 'is not', null)])]))
      .execute();
    const now = Date.now();
    for (const t of lost) {
      const r = await this.db
        .updateTable('tasks')
        .set({ status: 'abnormal', error: 'node went offline', finish_ts: now })
        .where('id', '=', t.id)
        .where('status', '=', t.status)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) await this.afterFinal(t.id);
    }
    this.ctx.events.emit('node.status', { nodeId, status: 'offline' } satisfies NodeStatusEvent);
    if (Number(claim.numUpdatedRows) > 0) this.ctx.events.emit('node.offline', { nodeId });
    this.ctx.log.warn({ nodeId, abnormal: lost.length }, 'node went offline');
  }

  /** A node's WebSocket: first message must be `register`. */
  attach(socket: WebSocket, ip: string): void {
    let session: Session | undefined;
    let chain: Promise<void> = Promise.resolve();
    socket.on('message', (data) => {
      const msg = parseMessage<NodeToMaster>(data.toString());
      if (!msg) return;
      // Messages of one node are handled in order.
      chain = chain
        .then(async () => {
          if (msg.type === 'register') {
            session = await this.register(socket, ip, msg);
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
          if (isStoreUnavailable(err) && msg.type !== 'heartbeat') this.registerAgain(socket);
        });
    });
    socket.on('close', () => {
      if (session && this.sessions.get(session.nodeId)?.socket === socket) {
        this.sessions.delete(session.nodeId);
        // Not offline yet: a node that reconnects within the offline timeout keeps its tasks running.
        void this.saveStatus(session.nodeId).catch(() => undefined);
      }
    });
    socket.on('error', () => undefined);
  }

  /**
   * What the node said or was sent could not be stored (PostgreSQL away): it connects and registers again, which
   * reports its running tasks and re-sends final reports the master did not acknowledge; the store and the node
   * agree again once registration succeeds. A lost heartbeat needs no repeat.
   */
  private registerAgain(socket: WebSocket): void {
    socket.close(1013, 'store unavailable, register again');
  }

  private async register(socket: WebSocket, ip: string, msg: Extract<NodeToMaster, { type: 'register' }>): Promise<Session> {
    if (msg.protocol !== PROTOCOL_VERSION) throw new Error(`node protocol ${msg.protocol} is not supported`);
    const now = Date.now();
    const existing = await this.db.selectFrom('nodes').selectAll().where('id', '=', msg.nodeId).executeTakeFirst();
    if (!existing) {
      await this.db
        .insertInto('nodes')
        .values({
          id: msg.nodeId,
          name: msg.name,
          description: '',
          type: msg.nodeType,
          status: 'online',
          enabled: 1,
          max_runners: msg.maxRunners,
          running: 0,
          ip,
          system_info: JSON.stringify(msg.systemInfo),
          metrics: 'null',
          last_seen_ts: now,
          create_ts: now,
          update_ts: now,
        })
        .execute();
    } else {
      await this.db
        .updateTable('nodes')
        .set({ type: msg.nodeType, ip, system_info: JSON.stringify(msg.systemInfo), last_seen_ts: now, update_ts: now, offline_ts: null })
        .where('id', '=', msg.nodeId)
        .execute();
    }
    const row = (await this.db.selectFrom('nodes').selectAll().where('id', '=', msg.nodeId).executeTakeFirst())!;
    const old = this.sessions.get(msg.nodeId);
    if (old && old.socket !== socket) old.socket.terminate();
    const session: Session = { nodeId: msg.nodeId, socket, enabled: row.enabled === 1, maxRunners: row.max_runners, active: new Set(), paused: false, isMaster: msg.nodeType === 'master' };
    this.sessions.set(msg.nodeId, session);
    this.armOffline(msg.nodeId);
    await this.reconcile(session, msg.tasks);
    this.send(session, { type: 'registered', nodeId: msg.nodeId, heartbeatMs: heartbeatMs(), enabled: session.enabled, maxRunners: session.maxRunners });
    await this.saveStatus(msg.nodeId);
    this.ctx.log.info({ nodeId: msg.nodeId, type: msg.nodeType, reported: msg.tasks.length }, 'node registered');
    this.scheduleDispatch();
    return session;
  }

  /** The node says what it still runs; the store follows the node for tasks it knows, the rest are lost. */
  private async reconcile(s: Session, reports: Extract<NodeToMaster, { type: 'register' }>['tasks']): Promise<void> {
    const reported = new Map(reports.map((r) => [r.taskId, r]));
    const ids = [...reported.keys()];
    const rows = ids.length ? await this.db.selectFrom('tasks').select(['id', 'status', 'node_id']).where('id', 'in', ids).execute() : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const r of reports) {
      const t = byId.get(r.taskId);
      if (!t || t.node_id !== s.nodeId) {
        this.send(s, { type: 'task.drop', taskId: r.taskId });
        continue;
      }
      s.active.add(r.taskId);
      if (r.state === 'running') {
        if (t.status === 'cancelled') this.send(s, { type: 'task.cancel', taskId: r.taskId });
        else if (t.status !== 'running') {
          await this.db.updateTable('tasks').set({ status: 'running', error: '', finish_ts: null, pid: r.pid }).where('id', '=', r.taskId).execute();
          await this.emitStatus(r.taskId);
        }
      }
    }
    const mine = await this.db
      .selectFrom('tasks')
      .select(['id', 'status', 'run_type'])
      .where('node_id', '=', s.nodeId)
      .where((eb) => eb.or([eb('status', 'in', [...ACTIVE_FOR_NODE]), eb.and([eb('status', '=', 'pending'), eb('assign_ts', 'is not', null)])]))
      .execute();
    const now = Date.now();
    for (const t of mine) {
      if (reported.has(t.id)) continue;
      if (t.status === 'pending') {
        await this.unassign(t.id, t.run_type);
      } else {
        await this.db.updateTable('tasks').set({ status: 'abnormal', error: 'the node lost the task (restarted)', finish_ts: now }).where('id', '=', t.id).where('status', '=', 'running').execute();
        await this.afterFinal(t.id);
      }
    }
  }

  private async unassign(taskId: string, runType: string): Promise<void> {
    await this.db
      .updateTable('tasks')
      .set({ assign_ts: null, ...(runType === 'random' ? { node_id: EMPTY_ID } : {}) })
      .where('id', '=', taskId)
      .where('status', '=', 'pending')
      .execute();
  }

  private async handle(s: Session, msg: NodeToMaster): Promise<void> {
    this.armOffline(s.nodeId);
    const now = Date.now();
    switch (msg.type) {
      case 'register':
        return;
      case 'heartbeat': {
        if (s.paused) {
          s.paused = false;
          this.scheduleDispatch();
        }
        await this.heartbeat(s, msg.metrics, now);
        return;
      }
      case 'task.accepted':
        return;
      case 'task.rejected': {
        s.active.delete(msg.taskId);
        s.paused = true;
        const t = await this.db.selectFrom('tasks').select(['run_type']).where('id', '=', msg.taskId).executeTakeFirst();
        if (t) await this.unassign(msg.taskId, t.run_type);
        await this.saveStatus(s.nodeId);
        this.scheduleDispatch();
        return;
      }
      case 'task.deployed': {
        await this.db
          .insertInto('deploys')
          .values({
            id: newId(msg.finishTs),
            spider_id: msg.spiderId,
            node_id: s.nodeId,
            task_id: msg.taskId,
            files_total: msg.filesTotal,
            files_changed: msg.filesChanged,
            bytes: msg.bytes,
            error: msg.error,
            create_ts: msg.startTs,
            finish_ts: msg.finishTs,
          })
          .execute()
          .catch((err: unknown) => this.ctx.log.warn({ err }, 'deploy record not stored (spider deleted?)'));
        return;
      }
      case 'task.started': {
        const r = await this.db
          .updateTable('tasks')
          .set({ status: 'running', start_ts: msg.startTs, pid: msg.pid, cmd: msg.cmd })
          .where('id', '=', msg.taskId)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) > 0) await this.emitStatus(msg.taskId);
        else {
          const t = await this.db.selectFrom('tasks').select('status').where('id', '=', msg.taskId).executeTakeFirst();
          if (!t) this.send(s, { type: 'task.drop', taskId: msg.taskId });
          else if (t.status === 'cancelled') this.send(s, { type: 'task.cancel', taskId: msg.taskId });
        }
        return;
      }
      case 'task.finished': {
        s.active.delete(msg.taskId);
        s.paused = false;
        const t = await this.db.selectFrom('tasks').select(['status', 'log_lines', 'item_offset']).where('id', '=', msg.taskId).executeTakeFirst();
        if (t) {
          // A user cancel wins over how the process ended; otherwise the node's word is final (also over abnormal).
          const status = t.status === 'cancelled' ? 'cancelled' : msg.status;
          await this.db
            .updateTable('tasks')
            .set({ status, exit_code: msg.exitCode, error: status === 'cancelled' && t.status === 'cancelled' ? '' : msg.error, finish_ts: msg.finishTs })
            .where('id', '=', msg.taskId)
            .execute();
          if (t.log_lines < msg.logLines || t.item_offset < msg.items) {
            this.ctx.log.error({ taskId: msg.taskId, stored: t.log_lines, reported: msg.logLines }, 'node finished a task with unshipped data');
          }
          // The node confirming a cancel (or repeating a report) changes no status: nothing to announce again.
          await this.afterFinal(msg.taskId, t.status === status);
        }
        this.send(s, { type: 'task.finished.ack', taskId: msg.taskId });
        await this.saveStatus(s.nodeId);
        this.scheduleDispatch();
        return;
      }
      default: {
        const never: never = msg;
        void never;
      }
    }
  }

  private async heartbeat(s: Session, m: NodeMetrics, now: number): Promise<void> {
    await this.db
      .updateTable('nodes')
      .set({ metrics: JSON.stringify(m), last_seen_ts: now, status: this.statusOf(s), running: s.active.size })
      .where('id', '=', s.nodeId)
      .execute();
    await this.db.insertInto('node_metrics').values({ node_id: s.nodeId, ts: now, cpu: m.cpu, mem: m.mem, disk: m.disk, running: m.running }).onConflict((oc) => oc.doNothing()).execute();
    this.ctx.events.emit('node.heartbeat', { nodeId: s.nodeId, status: this.statusOf(s), ts: now, metrics: m } satisfies NodeHeartbeatEvent);
    if (++this.heartbeatCount % 500 === 0) {
      await this.db.deleteFrom('node_metrics').where('ts', '<', now - 24 * 3600_000).execute();
    }
  }

  // ---------------------------------------------------------------- final states

  /** A task reached a final state: tell listeners (live views, webhooks, the retry engine of schedules). */
  async afterFinal(taskId: string, repeat = false): Promise<void> {
    await this.emitStatus(taskId, repeat);
  }

  /** Cancels a task: a pending one at once, a running one by asking its node (the final report follows). */
  async cancel(taskId: string): Promise<boolean> {
    const t = await this.db.selectFrom('tasks').select(['id', 'status', 'node_id', 'assign_ts']).where('id', '=', taskId).executeTakeFirst();
    if (!t || (t.status !== 'pending' && t.status !== 'running')) return false;
    const now = Date.now();
    const r = await this.db.updateTable('tasks').set({ status: 'cancelled', finish_ts: now }).where('id', '=', taskId).where('status', '=', t.status).executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    if (t.status === 'running' || t.assign_ts != null) {
      const sent = this.sendTo(t.node_id, { type: 'task.cancel', taskId });
      if (!sent) {
        this.sessions.get(t.node_id)?.active.delete(taskId);
        // The node may hold its connection to another master.
        if (!this.sessions.has(t.node_id)) await this.bus.publish({ type: 'cancel', taskId, nodeId: t.node_id });
      }
    }
    await this.emitStatus(taskId);
    return true;
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
    this.send(s, { type: 'task.drop', taskId });
    if (s.active.delete(taskId)) {
      void this.saveStatus(nodeId).catch(() => undefined);
      this.scheduleDispatch();
    }
  }

  async setNodeConfig(nodeId: string, enabled: boolean, maxRunners: number): Promise<void> {
    const s = this.sessions.get(nodeId);
    if (s) {
      s.enabled = enabled;
      s.maxRunners = maxRunners;
      this.send(s, { type: 'config', enabled, maxRunners });
    }
    await this.saveStatus(nodeId);
    this.scheduleDispatch();
  }

  // ---------------------------------------------------------------- dispatch

  /** New pending tasks: dispatch here, and wake the other masters, whose nodes may have free slots. */
  async tasksCreated(): Promise<void> {
    this.scheduleDispatch();
    await this.bus.publish({ type: 'dispatch' });
  }

  /** Push dispatch: called whenever a task is created or a slot frees up; runs one pass at a time. */
  scheduleDispatch(): void {
    if (this.closed) return;
    if (this.dispatchRunning) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatchRunning = true;
    void (async () => {
      try {
        do {
          this.dispatchAgain = false;
          await this.dispatchPass();
        } while (this.dispatchAgain && !this.closed);
      } catch (err) {
        this.ctx.log.error({ err }, 'dispatch failed');
      } finally {
        this.dispatchRunning = false;
      }
    })();
  }

  private async dispatchPass(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      const free = [...this.sessions.values()].filter((s) => s.enabled && !s.paused && s.active.size < s.maxRunners && s.socket.readyState === 1);
      if (!free.length) return;
      // Least loaded first: a random task goes to the node with the fewest active tasks.
      const load = (s: Session) => s.active.size / s.maxRunners;
      free.sort((a, b) => load(a) - load(b) || a.active.size - b.active.size);
      let progressed = false;
      // A random task created while this pass runs must not slip to a busier node: only nodes as little loaded as
      // the first, or behind master nodes closed to it, take random tasks; a busier node claims its own tasks only.
      let randomOpen = true;
      for (const s of free) {
        const adminsOnly = s.isMaster && (await masterNodeClosedToUsers(this.db));
        const takesRandom = randomOpen || load(s) === load(free[0]);
        const taskId = await this.claim(s.nodeId, adminsOnly, takesRandom);
        if (!adminsOnly) randomOpen = false;
        if (!taskId) continue;
        s.active.add(taskId);
        progressed = true;
        await this.assign(s, taskId).catch((err: unknown) => {
          // Claimed but maybe never sent: registering again puts the claim back in the queue (reconcile).
          if (isStoreUnavailable(err)) this.registerAgain(s.socket);
          throw err;
        });
        await this.saveStatus(s.nodeId);
        break;
      }
      if (!progressed) return;
    }
  }

  /**
   * Claims the oldest pending task this node may run (its own or a random one): SKIP LOCKED on PostgreSQL.
   * `adminsOnly`: only tasks of admins or of no user (the master's node while normal users' tasks are kept off it).
   * `takesRandom`: also tasks for any node; otherwise only the tasks made for this node.
   */
  private async claim(nodeId: string, adminsOnly: boolean, takesRandom: boolean): Promise<string | undefined> {
    const now = Date.now();
    return this.db.transaction().execute(async (trx) => {
      let q = trx
        .selectFrom('tasks')
        .select(['id', 'run_type'])
        .where('status', '=', 'pending')
        .where('assign_ts', 'is', null)
        .where('node_id', 'in', takesRandom ? [nodeId, EMPTY_ID] : [nodeId])
        .orderBy('create_ts')
        .orderBy('id')
        .limit(1);
      if (adminsOnly) q = q.where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', 'in', eb.selectFrom('users').select('id').where('role', '=', 'admin'))]));
      if (this.ctx.store.engine === 'postgres') q = q.forUpdate().skipLocked();
      const row = await q.executeTakeFirst();
      if (!row) return undefined;
      const r = await trx
        .updateTable('tasks')
        .set({ node_id: nodeId, assign_ts: now })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .where('assign_ts', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0 ? row.id : undefined;
    });
  }

  private async assign(s: Session, taskId: string): Promise<void> {
    const t = await this.db.selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirst();
    if (!t) return;
    const spider = await spiderForTask(this.db, t.spider_id);
    if (!spider) {
      s.active.delete(taskId);
      await this.db.updateTable('tasks').set({ status: 'error', error: 'spider not found', finish_ts: Date.now() }).where('id', '=', taskId).execute();
      await this.emitStatus(taskId);
      return;
    }
    const env = { ...(await globalEnv(this.db)), ...spider.envs };
    const task: TaskAssignment = {
      taskId,
      spiderId: spider.id,
      spiderName: spider.name,
      cmd: t.cmd || spider.cmd,
      param: t.param,
      collection: spider.collection,
      isDedup: spider.isDedup,
      dedupField: spider.dedupField,
      dedupMethod: spider.dedupMethod,
      env,
      files: await spiderManifest(this.db, spider.id),
    };
    if (!this.send(s, { type: 'task.assign', task })) {
      s.active.delete(taskId);
      await this.unassign(taskId, t.run_type);
    }
  }
}

const runtimes = new WeakMap<AppContext, TaskRuntime>();
export function getRuntime(ctx: AppContext): TaskRuntime {
  let r = runtimes.get(ctx);
  if (!r) {
    r = new TaskRuntime(ctx);
    runtimes.set(ctx, r);
  }
  return r;
}

/**
 * A node's life as the master records it: registration, status (written only when it changes), and the offline
 * transition once its heartbeats stayed away for the whole window, which ends its running tasks abnormal.
 */
import { END_REASON_PREFIX } from '@crawldeck/shared';
import type { WebSocket } from 'ws';
import type { NodeToMaster } from '@crawldeck/shared';
import type { CoreContext } from '../../context.ts';
import type { NodeStatusEvent, TaskStatusEvent } from '../../events.ts';
import { abandonTask, nodesWithRunningTasks, tasksOnNode } from './task-state.store.ts';
import {
  claimOfflineTransition,
  lastSeen,
  nodesNotOffline,
  saveNodeStatus,
  silentNodes,
  upsertRegisteredNode,
} from './node-state.store.ts';
import type { OfflineSweep } from './offline-sweep.ts';
import { statusOf, type Session, type SessionTable } from './sessions.ts';

type Register = Extract<NodeToMaster, { type: 'register' }>;

export class NodeLifecycle {
  /** Node status rows written (tests check that heartbeats alone write none). */
  statusWrites = 0;
  /**
   * Registrations are stored one at a time, so two nodes joining together under one name never both find it
   * free (the second gets a numbered one).
   */
  private registering: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: CoreContext,
    private readonly sessions: SessionTable,
    private readonly emitTask: (ev: TaskStatusEvent | undefined) => void,
  ) {}

  private get db() {
    return this.ctx.store.db;
  }

  /** Nodes that must report within one window after a start: those not offline, and those still running tasks. */
  async nodesToWatch(): Promise<Set<string>> {
    return new Set([...(await nodesNotOffline(this.db)), ...(await nodesWithRunningTasks(this.db))]);
  }

  /**
   * Once the master accepts node connections: nodes that were online (or still run tasks) get one offline window
   * from now to reconnect. Started any earlier, a slow start (a large store to open, a loaded machine) would use up
   * the window before any node could reach the master, and declare nodes offline and their still running tasks
   * abnormal the moment it listens.
   */
  async watchFromNow(sweep: OfflineSweep, closed: () => boolean): Promise<void> {
    if (closed()) return;
    sweep.start();
    try {
      for (const id of await this.nodesToWatch()) if (!sweep.pending(id)) sweep.heard(id);
      sweep.watchStore();
    } catch (err) {
      // The store is away at this moment (PostgreSQL restarting): ask again shortly; nodes that report meanwhile
      // are watched already.
      this.ctx.log.warn({ err }, 'reading the nodes to watch failed; trying again in a second');
      setTimeout(() => void this.watchFromNow(sweep, closed), 1000).unref();
    }
  }

  /** Stores the node and opens its session (a session of the same node on another socket is cut). */
  async register(socket: WebSocket, ip: string, msg: Register): Promise<Session> {
    const now = Date.now();
    const stored = this.registering.then(() =>
      upsertRegisteredNode(this.db, { ...msg, ip }, now, this.ctx.store.engine),
    );
    this.registering = stored.catch(() => undefined);
    const row = await stored;
    const old = this.sessions.get(msg.nodeId);
    if (old && old.socket !== socket) old.socket.terminate();
    return this.sessions.open({
      nodeId: msg.nodeId,
      socket,
      enabled: row.enabled === 1,
      maxRunners: row.max_runners,
      isMaster: msg.nodeType === 'master',
      sandboxed: msg.systemInfo.sandbox?.isolated === true,
      lastSeenTs: now,
    });
  }

  /** Stores the node's status and tells the views, when it differs from what was stored. */
  async saveStatus(nodeId: string): Promise<void> {
    const s = this.sessions.get(nodeId);
    const status = statusOf(s);
    if (s && s.storedStatus === status) return;
    if (s) s.storedStatus = status;
    this.statusWrites++;
    await saveNodeStatus(this.db, nodeId, status, s?.active.size ?? 0);
    this.ctx.events.emit('node.status', { nodeId, status } satisfies NodeStatusEvent);
  }

  /** The node's window ran out on this master: offline, unless another master sharing the store still hears it. */
  async expire(nodeId: string, sweep: OfflineSweep): Promise<void> {
    const seen = (await lastSeen(this.db, [nodeId])).get(nodeId);
    if (seen != null && Date.now() - seen < sweep.offlineMs - 50) {
      // Another master heard it since (the node moved on to it): a connection here that stayed silent for the whole
      // window is dead, and the node's tasks are in the other master's hands.
      this.dropSession(nodeId);
      sweep.heard(nodeId, seen);
      return;
    }
    await this.markOffline(nodeId, await claimOfflineTransition(this.db, nodeId));
  }

  private dropSession(nodeId: string): void {
    const s = this.sessions.get(nodeId);
    if (!s) return;
    this.sessions.delete(nodeId);
    s.socket.terminate();
  }

  /**
   * The nodes no master has heard within the window, as the store records them: those a master that is gone (or
   * never came back) held. Every live master looks; the conditional claim gives each node to one of them, which
   * alone marks it offline and ends its tasks. Nodes this master waits for itself are left to its own clock.
   * Answers how many went offline here.
   */
  async sweepStore(sweep: OfflineSweep): Promise<number> {
    const heardBefore = Date.now() - sweep.offlineMs;
    let marked = 0;
    for (const nodeId of await silentNodes(this.db, heardBefore)) {
      if (this.sessions.has(nodeId) || sweep.pending(nodeId)) continue;
      if (!(await claimOfflineTransition(this.db, nodeId, heardBefore))) continue;
      await this.markOffline(nodeId, true);
      marked++;
    }
    return marked;
  }

  /**
   * Heartbeats stopped: the node is offline and its running tasks are abnormal. `first`: this master recorded the
   * transition (of all masters sharing the store), so it alone announces it.
   */
  private async markOffline(nodeId: string, first: boolean): Promise<void> {
    this.dropSession(nodeId);
    this.statusWrites++;
    await saveNodeStatus(this.db, nodeId, 'offline', 0);
    const lost = await tasksOnNode(this.db, nodeId);
    for (const t of lost)
      this.emitTask(
        await abandonTask(
          this.db,
          t.id,
          t.status === 'running' ? 'running' : 'pending',
          `${END_REASON_PREFIX.nodeLost}: the node went offline`,
        ),
      );
    this.ctx.events.emit('node.status', { nodeId, status: 'offline' } satisfies NodeStatusEvent);
    if (first) this.ctx.events.emit('node.offline', { nodeId });
    this.ctx.log.warn({ nodeId, abnormal: lost.length }, 'node went offline');
  }
}

/**
 * The nodes connected to this master, as it holds them in memory: their socket, capacity, the tasks it has handed
 * them, their latest metrics and when they were last heard. Dispatch chooses nodes from here without asking the
 * store; the store learns a node's status only when it changes.
 */
import type { WebSocket } from 'ws';
import type { MasterToNode, NodeMetrics, NodeStatus } from '@crawldeck/shared';
import { FreeSessions } from './free-sessions.ts';

/** A node's session as it opens: the rest starts empty (no tasks held, not paused, no metrics yet). */
export interface SessionInit {
  nodeId: string;
  socket: WebSocket;
  enabled: boolean;
  maxRunners: number;
  isMaster: boolean;
  /** The node sandboxes every task (normal users' tasks may be kept off nodes that do not); absent: it does not. */
  sandboxed?: boolean;
  lastSeenTs: number;
}

/**
 * One node's connection to this master. What decides whether the node takes work (enabled, capacity, tasks held,
 * paused) changes only through the session's own methods, each of which tells the table's index of free sessions,
 * so dispatch's order can never miss a change.
 */
export class Session {
  readonly nodeId: string;
  socket: WebSocket;
  /** The master's own node: normal users' tasks may be kept off it (placement.ts). */
  isMaster: boolean;
  /** The node sandboxes every task; normal users' tasks are kept off it otherwise (placement.ts). */
  sandboxed: boolean;
  /** The status last written to the store (writes happen only when it changes). */
  storedStatus: NodeStatus | undefined = undefined;
  /** Latest heartbeat, kept here rather than written on every beat. */
  metrics: NodeMetrics | null = null;
  lastSeenTs: number;
  #enabled: boolean;
  #maxRunners: number;
  readonly #active = new Set<string>();
  #paused = false;

  constructor(
    init: SessionInit,
    /** Told after each change of what decides whether the node takes work. */
    private readonly changed: (s: Session) => void = () => undefined,
  ) {
    this.nodeId = init.nodeId;
    this.socket = init.socket;
    this.isMaster = init.isMaster;
    this.sandboxed = init.sandboxed === true;
    this.lastSeenTs = init.lastSeenTs;
    this.#enabled = init.enabled;
    this.#maxRunners = init.maxRunners;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  get maxRunners(): number {
    return this.#maxRunners;
  }

  /** Tasks claimed for or running on this node, as the master sees them. */
  get active(): ReadonlySet<string> {
    return this.#active;
  }

  /** The node refused a task (full by its own count): no new work until it reports in again. */
  get paused(): boolean {
    return this.#paused;
  }

  /** A task was claimed for the node, or the node reports running it. */
  addTask(taskId: string): void {
    this.#active.add(taskId);
    this.changed(this);
  }

  /** The node no longer holds the task; false when it did not. */
  removeTask(taskId: string): boolean {
    if (!this.#active.delete(taskId)) return false;
    this.changed(this);
    return true;
  }

  /** The node refused a task (paused until it reports in again), or reported in. */
  setPaused(paused: boolean): void {
    this.#paused = paused;
    this.changed(this);
  }

  configure(enabled: boolean, maxRunners: number): void {
    this.#enabled = enabled;
    this.#maxRunners = maxRunners;
    this.changed(this);
  }
}

export function statusOf(s: Session | undefined): NodeStatus {
  if (!s) return 'offline';
  return !s.enabled || s.active.size >= s.maxRunners ? 'unavailable' : 'online';
}

export class SessionTable {
  private readonly byId = new Map<string, Session>();
  /** The sessions that take work now, least loaded first (dispatch chooses from here). */
  readonly free = new FreeSessions();

  get(nodeId: string): Session | undefined {
    return this.byId.get(nodeId);
  }

  has(nodeId: string): boolean {
    return this.byId.has(nodeId);
  }

  /** Opens a node's session (replacing an earlier one of the same node) and enters it in the free sessions. */
  open(init: SessionInit): Session {
    const s = new Session(init, (changed) => this.free.update(changed));
    this.byId.set(s.nodeId, s);
    this.free.open(s);
    return s;
  }

  delete(nodeId: string): void {
    this.byId.delete(nodeId);
    this.free.close(nodeId);
  }

  values(): IterableIterator<Session> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }

  send(s: Session, msg: MasterToNode): boolean {
    if (s.socket.readyState !== 1) return false;
    s.socket.send(JSON.stringify(msg));
    return true;
  }

  sendTo(nodeId: string, msg: MasterToNode): boolean {
    const s = this.byId.get(nodeId);
    return s ? this.send(s, msg) : false;
  }

  closeAll(): void {
    for (const s of [...this.byId.values()]) {
      s.socket.close(1001, 'master shutting down');
      this.delete(s.nodeId);
    }
  }
}

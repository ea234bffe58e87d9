/**
 * The nodes connected to this master, as it holds them in memory: their socket, capacity, the tasks it has handed
 * them, their latest metrics and when they were last heard. Dispatch chooses nodes from here without asking the
 * store; the store learns a node's status only when it changes.
 */
import type { WebSocket } from 'ws';
import type { MasterToNode, NodeMetrics, NodeStatus } from '@crawldeck/shared';
import { FreeSessions } from './free-sessions.ts';

/**
 * What decides whether a node takes work (enabled, capacity, tasks held, paused) changes only through the
 * SessionTable, which keeps the free sessions in order as it does.
 */
export interface Session {
  nodeId: string;
  socket: WebSocket;
  readonly enabled: boolean;
  readonly maxRunners: number;
  /** Tasks claimed for or running on this node, as the master sees them. */
  readonly active: ReadonlySet<string>;
  /** The node refused a task (full by its own count): no new work until it reports in again. */
  readonly paused: boolean;
  /** The master's own node: normal users' tasks may be kept off it (tasks/master-node.ts). */
  isMaster: boolean;
  /** The status last written to the store (writes happen only when it changes). */
  storedStatus: NodeStatus | undefined;
  /** Latest heartbeat, kept here rather than written on every beat. */
  metrics: NodeMetrics | null;
  lastSeenTs: number;
}

export function statusOf(s: Session | undefined): NodeStatus {
  if (!s) return 'offline';
  return !s.enabled || s.active.size >= s.maxRunners ? 'unavailable' : 'online';
}

/** The fields of a session only the table changes. */
interface Writable {
  enabled: boolean;
  maxRunners: number;
  active: Set<string>;
  paused: boolean;
}

const writable = (s: Session) => s as unknown as Writable;

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

  set(s: Session): void {
    this.byId.set(s.nodeId, s);
    this.free.open(s);
  }

  delete(nodeId: string): void {
    this.byId.delete(nodeId);
    this.free.close(nodeId);
  }

  /** A task was claimed for the node, or the node reports running it. */
  addTask(s: Session, taskId: string): void {
    writable(s).active.add(taskId);
    this.free.update(s);
  }

  /** The node no longer holds the task; false when it did not. */
  removeTask(s: Session, taskId: string): boolean {
    if (!writable(s).active.delete(taskId)) return false;
    this.free.update(s);
    return true;
  }

  /** The node refused a task (paused until it reports in again), or reported in. */
  setPaused(s: Session, paused: boolean): void {
    writable(s).paused = paused;
    this.free.update(s);
  }

  configure(s: Session, enabled: boolean, maxRunners: number): void {
    writable(s).enabled = enabled;
    writable(s).maxRunners = maxRunners;
    this.free.update(s);
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

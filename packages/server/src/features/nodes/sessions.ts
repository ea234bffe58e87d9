/**
 * The nodes connected to this master, as it holds them in memory: their socket, capacity, the tasks it has handed
 * them, their latest metrics and when they were last heard. Dispatch chooses nodes from here without asking the
 * store; the store learns a node's status only when it changes.
 */
import type { WebSocket } from 'ws';
import type { MasterToNode, NodeMetrics, NodeStatus } from '@crawldeck/shared';

export interface Session {
  nodeId: string;
  socket: WebSocket;
  enabled: boolean;
  maxRunners: number;
  /** Tasks claimed for or running on this node, as the master sees them. */
  active: Set<string>;
  /** The node refused a task (full by its own count): no new work until it reports in again. */
  paused: boolean;
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

/** Share of the node's runners in use: dispatch fills the least loaded node first. */
export function loadOf(s: Session): number {
  return s.active.size / s.maxRunners;
}

export function takesWork(s: Session): boolean {
  return s.enabled && !s.paused && s.active.size < s.maxRunners && s.socket.readyState === 1;
}

export class SessionTable {
  private readonly byId = new Map<string, Session>();

  get(nodeId: string): Session | undefined {
    return this.byId.get(nodeId);
  }

  has(nodeId: string): boolean {
    return this.byId.has(nodeId);
  }

  set(s: Session): void {
    this.byId.set(s.nodeId, s);
  }

  delete(nodeId: string): void {
    this.byId.delete(nodeId);
  }

  values(): IterableIterator<Session> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }

  /** Sessions that may take a task right now. */
  free(): Session[] {
    const out: Session[] = [];
    for (const s of this.byId.values()) if (takesWork(s)) out.push(s);
    return out;
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
    for (const s of this.byId.values()) s.socket.close(1001, 'master shutting down');
    this.byId.clear();
  }
}

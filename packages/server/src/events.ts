/**
 * The in-process event bus between features: every event is named once here with its payload type, so an emitter
 * and its listeners cannot disagree on the shape. Each event has at least one emitter and one listener in the
 * server (events.test.ts checks the call sites against this map).
 */
import { EventEmitter } from 'node:events';
import type { NodeMetrics, NodeStatus, SuspiciousReason } from '@crawldeck/shared';

/** A task changed status (created, running, final, deleted): live views, webhooks, the retry engine. */
export interface TaskStatusEvent {
  taskId: string;
  status: string;
  spiderId: string;
  nodeId: string;
  scheduleId: string | null;
  parentId: string | null;
  error: string;
  /** The store had this status already (the node confirms a cancel): views refresh, nothing is announced again. */
  repeat?: boolean;
}

/**
 * The task status changes of one interval (about a second), the latest of each task only, in the order the tasks
 * first changed in it (task-feed.ts): each console's stream keeps the tasks its user may read, so a console hears at
 * most one task event per interval however many tasks run.
 */
export interface TasksChangedEvent {
  ts: number;
  changes: Map<string, TaskStatusEvent>;
  /** A node's status changed in the interval: why pending tasks wait may have changed with it. */
  fleetChanged?: boolean;
}

/** New log lines of a task were stored: the task's live log view. */
export interface LogEvent {
  taskId: string;
  lines: { line_no: number; msg: string; is_error: boolean }[];
}

/** A node's status changed (registered, disabled, full, disconnected, offline): the console's node views refresh. */
export interface NodeStatusEvent {
  nodeId: string;
  status: NodeStatus;
}

/** Every heartbeat: gathered into the console's node changes (node-feed.ts), never sent on one by one. */
export interface NodeHeartbeatEvent extends NodeStatusEvent {
  ts: number;
  metrics: NodeMetrics;
}

/** A node's latest state in one interval of the console's node feed. */
export interface NodeChangeEntry {
  nodeId: string;
  status: NodeStatus;
  /** Its status changed in the interval: every console hears of it, whatever nodes its screen watches. */
  statusChanged: boolean;
  /** The latest heartbeat of the interval, if any (only consoles watching the node receive it). */
  heartbeat?: { ts: number; metrics: NodeMetrics };
}

/**
 * The node changes of one interval (about a second), latest values only: each console's stream picks the nodes
 * its screen needs, so a console hears at most one node event per interval however large the fleet.
 */
export interface NodesChangedEvent {
  ts: number;
  changes: Map<string, NodeChangeEntry>;
  /** The ids whose status changed, in the order the changes came. */
  statusChanged: string[];
}

/**
 * A node went offline for real: heartbeats stayed away for the whole offline window and its running tasks are
 * abnormal. Emitted once per transition, by the master that recorded it (a disconnect that reconnects in time is
 * not one).
 */
export interface NodeOfflineEvent {
  nodeId: string;
}

/** A schedule's stored state changed behind the scheduler's back (e.g. a fire found no spider). */
export interface ScheduleChangedEvent {
  scheduleId: string;
}

/** A schedule fired but created no task (its spider, command or nodes are gone, or its owner may no longer run it). */
export interface ScheduleSkippedEvent {
  scheduleId: string;
  spiderId: string;
  error: string;
}

/** New result items of a task were stored: the metrics count them. */
export interface ItemsEvent {
  taskId: string;
  stored: number;
}

/**
 * A task finished in a way that deserves a look although its status says finished: it printed error lines, or it
 * stored no result where the spider's earlier runs stored many. Webhooks announce it.
 */
export interface TaskSuspiciousEvent {
  taskId: string;
  spiderId: string;
  /** Why: `error_lines`, `no_results` or both. */
  reasons: SuspiciousReason[];
  errorLines: number;
  results: number;
  /** Median results of the spider's earlier finished runs (0 when it has none). */
  usualResults: number;
}

/** A batch of a task's items could not be written into its results database (stalled, unreachable, refused). */
export interface DataSourceFailedEvent {
  taskId: string;
  dataSourceId: string;
  /** What the task shows: `data source "<name>": <why>`. */
  error: string;
}

/** A batch of a task's items was written into its results database. */
export interface DataSourceWrittenEvent {
  taskId: string;
  dataSourceId: string;
}

export interface EventMap {
  'task.status': TaskStatusEvent;
  'tasks.changed': TasksChangedEvent;
  'task.log': LogEvent;
  'node.status': NodeStatusEvent;
  'node.heartbeat': NodeHeartbeatEvent;
  'nodes.changed': NodesChangedEvent;
  'node.offline': NodeOfflineEvent;
  'schedule.changed': ScheduleChangedEvent;
  'schedule.skipped': ScheduleSkippedEvent;
  /** The id of a deleted spider: its schedules stop. */
  'spider.deleted': string;
  /** The id of a deleted user: their spiders went with them, and the purge of those spiders' tasks starts. */
  'user.deleted': string;
  'task.items': ItemsEvent;
  'task.suspicious': TaskSuspiciousEvent;
  'datasource.failed': DataSourceFailedEvent;
  'datasource.written': DataSourceWrittenEvent;
}

export type EventName = keyof EventMap;
export type Listener<K extends EventName> = (payload: EventMap[K]) => void;

/** Every event name, for checks that each one is both emitted and listened to. */
export const EVENT_NAMES = [
  'task.status',
  'tasks.changed',
  'task.log',
  'node.status',
  'node.heartbeat',
  'nodes.changed',
  'node.offline',
  'schedule.changed',
  'schedule.skipped',
  'spider.deleted',
  'user.deleted',
  'task.items',
  'task.suspicious',
  'datasource.failed',
  'datasource.written',
] as const satisfies readonly EventName[];

/** A typed EventEmitter: the same call shape, but names and payloads are checked against EventMap. */
export class EventBus {
  private readonly ee = new EventEmitter();

  constructor() {
    // One listener per open live view (SSE): no fixed limit.
    this.ee.setMaxListeners(0);
  }

  emit<K extends EventName>(name: K, payload: EventMap[K]): boolean {
    return this.ee.emit(name, payload);
  }

  on<K extends EventName>(name: K, fn: Listener<K>): this {
    this.ee.on(name, fn);
    return this;
  }

  once<K extends EventName>(name: K, fn: Listener<K>): this {
    this.ee.once(name, fn);
    return this;
  }

  off<K extends EventName>(name: K, fn: Listener<K>): this {
    this.ee.off(name, fn);
    return this;
  }

  listenerCount(name: EventName): number {
    return this.ee.listenerCount(name);
  }
}

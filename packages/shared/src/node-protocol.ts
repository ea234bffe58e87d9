/**
 * Control protocol between a node service and the master, carried as JSON text frames over ONE WebSocket that
 * the node opens to `/api/nodes/connect` (header `x-crawldeck-node-key`: the node's own key, or the shared key
 * to join). Bulk data (file blobs, log and item batches) goes over HTTP under `/api/node-api/…` with the node's
 * own key. Both sides handle these unions with
 * exhaustive switches, so adding a message type is a compile error until every side handles it.
 */
import { Type } from '@sinclair/typebox';
import { Int } from './bounds.ts';
import type { SandboxInfo } from './nodes.ts';

export const NODE_KEY_HEADER = 'x-crawldeck-node-key';
export const NODE_ID_HEADER = 'x-crawldeck-node-id';
export const PROTOCOL_VERSION = 1;

export type NodeType = 'master' | 'worker';
export type NodeStatus = 'online' | 'offline' | 'unavailable';

export interface Executable {
  name: string;
  path: string;
}

export interface SystemInfo {
  os: string;
  arch: string;
  num_cpu: number;
  hostname: string;
  executables: Executable[];
  /** Interpreter the node uses for `python …` / `scrapy …` commands. */
  python: string;
  /** How the node confines tasks; a node from before sandboxes sends none (treated as not sandboxed). */
  sandbox?: SandboxInfo;
}

export interface NodeMetrics {
  /** 0..100 */
  cpu: number;
  /** 0..100 */
  mem: number;
  /** 0..100, of the node's data dir file system */
  disk: number;
  mem_total: number;
  disk_total: number;
  running: number;
}

/** A task as the master hands it to a node: everything needed to sync and run without further lookups. */
export interface TaskAssignment {
  taskId: string;
  spiderId: string;
  spiderName: string;
  cmd: string;
  param: string;
  /**
   * The spider's source folder (source-folder.ts): the task runs there, its environment is built from the files
   * there. '' or missing: the root of the spider's files.
   */
  src?: string;
  collection: string;
  isDedup: boolean;
  dedupField: string;
  dedupMethod: string;
  /** Global variables then the spider's envs (later wins). */
  env: Record<string, string>;
  /** Content-addressed snapshot of the spider's files (directories omitted). */
  files: { path: string; hash: string; size: number }[];
  /** Resource limits of the task's processes; a missing or 0 value leaves that limit to the node's default. */
  limits?: TaskLimits;
  /** Longest the task may run, in seconds: then its process tree is stopped (TERM, KILL after the grace). 0: none. */
  timeoutSeconds?: number;
  /** Largest item stored; a longer one is refused (missing: DEFAULT_MAX_ITEM_BYTES, set by the master's default). */
  itemLimit?: ItemSizeLimit;
  /**
   * The save of the package-index settings current when the task was sent: the node builds the task's environment
   * with that save or a later one, never an earlier one (missing: the node's current settings).
   */
  envSettingsVersion?: string;
}

/** The largest item a task stores, in bytes of its JSON line, and what sets it (told when an item is refused). */
export interface ItemSizeLimit {
  bytes: number;
  source: string;
}

/** Largest item stored when the master sets no limit of its own: 16 MiB, page HTML and more fit whole. */
export const DEFAULT_MAX_ITEM_BYTES = 16 * 1024 * 1024;

/** Resource limits of one task: memory (MiB), CPU (percent of one core) and processes at once. */
export interface TaskLimits {
  memoryMb?: number;
  cpuPercent?: number;
  maxProcesses?: number;
}

/** What a node reports about a task it still knows, on (re)connect. */
export interface TaskReport {
  taskId: string;
  /** running: process alive; done: exited, final report not acknowledged yet. */
  state: 'running' | 'done';
  pid: number | null;
}

export type FinalStatus = 'finished' | 'error' | 'cancelled';

export type NodeToMaster =
  | {
      type: 'register';
      protocol: number;
      nodeId: string;
      name: string;
      nodeType: NodeType;
      maxRunners: number;
      systemInfo: SystemInfo;
      tasks: TaskReport[];
    }
  | { type: 'heartbeat'; metrics: NodeMetrics; running: string[] }
  | { type: 'task.accepted'; taskId: string }
  | { type: 'task.rejected'; taskId: string; reason: string }
  | {
      type: 'task.deployed';
      taskId: string;
      spiderId: string;
      filesTotal: number;
      filesChanged: number;
      bytes: number;
      startTs: number;
      finishTs: number;
      error: string;
    }
  | { type: 'task.started'; taskId: string; pid: number; cmd: string; startTs: number }
  | {
      type: 'task.finished';
      taskId: string;
      status: FinalStatus;
      exitCode: number | null;
      error: string;
      /** Totals the node has shipped and had acknowledged (all of them, or it would not send this). */
      logLines: number;
      items: number;
      finishTs: number;
    };

export type MasterToNode =
  | {
      type: 'registered';
      nodeId: string;
      heartbeatMs: number;
      enabled: boolean;
      maxRunners: number;
      /** The node joined with the shared key: its own key, given once; the node keeps it and uses it from now on. */
      key?: string;
    }
  /** An administrator rotated the node's key: the new one, which replaces the node's kept key at once. */
  | { type: 'credential'; key: string }
  | { type: 'config'; enabled: boolean; maxRunners: number }
  | { type: 'task.assign'; task: TaskAssignment }
  | { type: 'task.cancel'; taskId: string }
  | { type: 'task.finished.ack'; taskId: string }
  /** The master does not know the task (deleted): stop it and drop its spool. */
  | { type: 'task.drop'; taskId: string }
  /** Environment jobs (installs) are waiting for this node: it claims them over HTTP. */
  | { type: 'env.wake' }
  | { type: 'error'; message: string };

/** Body of POST /api/node-api/tasks/:id/logs and /items: `lines` start at offset `from` (0-based). */
export interface ShipBatch {
  from: number;
  lines: string[];
}

/** Answer: everything below `acked` is stored (may be beyond from+lines.length after a master-side replay). */
export interface ShipAck {
  acked: number;
}

export function parseMessage<T>(raw: string): T | undefined {
  try {
    const m = JSON.parse(raw) as T & { type?: unknown };
    return m && typeof m === 'object' && typeof m.type === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

/** A batch of log lines a node ships for a task, from line number `from` on (a node cuts a line at 64 KiB). */
export const ShipBody = Type.Object({
  from: Int(0, Number.MAX_SAFE_INTEGER),
  lines: Type.Array(Type.String({ maxLength: 1024 * 1024 }), { maxItems: 100000 }),
});

/**
 * A batch of items a node ships for a task, from item number `from` on: each line one item of at most
 * `maxItemChars` UTF-16 units (never more than its bytes in UTF-8, the unit the node's limit counts).
 */
export const shipItemsBody = (maxItemChars: number) =>
  Type.Object({
    from: Int(0, Number.MAX_SAFE_INTEGER),
    lines: Type.Array(Type.String({ maxLength: maxItemChars }), { maxItems: 100000 }),
  });

/**
 * The folders of a task on the node: its spool in the node's private data dir (`log.txt`, `state.json`) and its
 * own folder `<runs>/<task id>/` (ours, others may only pass through) holding `ws/` (a copy of the spider's files,
 * the working folder), `home/`, `items.jsonl` and `exit`. The last four belong to the task user; the files sit in
 * our folder so the task can write them but not replace them with a link to something only we may read.
 */
import { cp, rmdir } from 'node:fs/promises';
import { chmodSync, lchownSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FinalStatus, ItemSizeLimit, TaskLimits } from '@crawldeck/shared';
import type { ShipperState } from './shipper.ts';
import { giveTree, passThroughDir, removeUserTree, removeUserTreeAsync, type TaskIdentity } from './sandbox.ts';

/** What the node keeps of a task in `<data dir>/tasks/<id>/state.json`, so a later run of the node takes over. */
export interface SavedRun {
  taskId: string;
  state: 'syncing' | 'running' | 'done';
  pid: number | null;
  /** Start time of the process (proc.ts): a process that later got the same pid is not taken for ours. */
  procStart: string | null;
  status: FinalStatus;
  exitCode: number | null;
  error: string;
  finishTs: number;
  cancelled: boolean;
  drained: boolean;
  /** The task's own uid from the node's pool (null without a sandbox, or from a node before it had one). */
  uid?: number | null;
  /** The limits its control groups were made with. */
  limits?: Required<TaskLimits> | null;
  /** When the task's maximum run time is up (epoch ms); absent when it has none. */
  deadline?: number;
  /** The node stopped it at its maximum run time. */
  timedOut?: boolean;
  /** Offsets the master acknowledged in the log spool and the items file. */
  log: ShipperState;
  items: ShipperState;
  /** Largest item stored and what sets it, as the master told when it assigned the task. */
  itemLimit?: ItemSizeLimit;
  /** Items refused for their size so far: how many, the largest, and the item number the next one has beyond. */
  refused?: RefusedItems;
}

export interface RefusedItems {
  count: number;
  largest: number;
  next: number;
}

/** The saved state of a task in the spool, or undefined when there is none that can be used. */
export function loadSavedRun(tasksDir: string, taskId: string): SavedRun | undefined {
  try {
    const s = JSON.parse(readFileSync(path.join(tasksDir, taskId, 'state.json'), 'utf8')) as SavedRun;
    return s && s.taskId === taskId && s.log && s.items ? s : undefined;
  } catch {
    return undefined;
  }
}

/** Creates a new task's spool and folder; throws when the spool cannot be created (disk full, read-only). */
export function createRunFiles(
  spoolDir: string,
  logFile: string,
  runDir: string,
  taskFiles: string[],
  identity: TaskIdentity | undefined,
): void {
  mkdirSync(spoolDir);
  writeFileSync(logFile, '', { flag: 'a' });
  passThroughDir(runDir);
  for (const file of taskFiles) {
    writeFileSync(file, '', { flag: 'a', mode: 0o600 });
    if (identity) lchownSync(file, identity.uid, identity.gid);
  }
}

/** Copies the synced spider files into a task's own working folder and hands it (and its home) to the task user. */
export async function copyWorkspace(
  spiderFiles: string,
  workspace: string,
  home: string,
  identity: TaskIdentity | undefined,
): Promise<void> {
  await removeUserTreeAsync(workspace, identity);
  await cp(spiderFiles, workspace, { recursive: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  // Only the task's own uid may enter its workspace, whatever the modes of the spider's files.
  chmodSync(workspace, 0o700);
  giveTree(workspace, identity);
  giveTree(home, identity);
}

/** Removes the task folders an earlier process of this node left behind, but those of the tasks in `keep`. */
export function clearRuns(
  runsDir: string,
  identity: TaskIdentity | undefined,
  keep: ReadonlySet<string> = new Set(),
): void {
  let names: string[] = [];
  try {
    names = readdirSync(runsDir);
  } catch {
    return;
  }
  for (const name of names) if (!keep.has(name)) clearRun(path.join(runsDir, name), identity);
}

/** `clearRun` in the background: a big workspace must not stall the node (or the master of an embedded node). */
export async function clearRunAsync(dir: string, identity: TaskIdentity | undefined): Promise<void> {
  await Promise.all([
    removeUserTreeAsync(path.join(dir, 'ws'), identity),
    removeUserTreeAsync(path.join(dir, 'home'), identity),
  ]);
  for (const file of ['items.jsonl', 'exit']) rmSync(path.join(dir, file), { force: true });
  await rmdir(dir).catch(() => undefined);
}

/** Removes one task folder: what the task user could write is removed as that user (sandbox.ts). */
function clearRun(dir: string, identity: TaskIdentity | undefined): void {
  removeUserTree(path.join(dir, 'ws'), identity);
  removeUserTree(path.join(dir, 'home'), identity);
  for (const file of ['items.jsonl', 'exit']) rmSync(path.join(dir, file), { force: true });
  try {
    rmdirSync(dir);
  } catch {
    /* refilled by a leftover process: left for the next start of the node */
  }
}

/**
 * A Unix identity of its own for every running task. Tasks of different users must never share a uid: a process can
 * read the environment, signal and trace, and write the files of any other process of its uid. The node therefore
 * hands each task a uid from a pool (numbers without a login, far above the ones of people and services) and takes
 * it back when the task's folder is gone.
 *
 * Several nodes may run on one host (the master's own node and a worker, in tests many), so a uid is claimed for the
 * whole host: a file named after it in a root-only folder, created exclusively. A claim whose node process is gone
 * and whose uid runs no process any more is stale and may be taken again.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync, lstatSync } from 'node:fs';
import path from 'node:path';
import type { TaskIdentity } from '../sandbox.ts';

export interface UidPoolOptions {
  /** First uid of the pool. */
  base: number;
  /** How many uids the pool holds. */
  size: number;
  /** Root-only folder holding one claim file per uid in use on this host. */
  claimsDir: string;
}

interface Claim {
  pid: number;
  node: string;
  task: string;
}

export const DEFAULT_UID_BASE = 1_900_000_000;
export const DEFAULT_UID_POOL_SIZE = 65_536;
export const DEFAULT_CLAIMS_DIR = '/run/crawldeck/task-uids';

function readClaim(file: string): Claim | undefined {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Claim;
    return typeof c.pid === 'number' && typeof c.node === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether any process of the host runs as `uid` (real uid, from /proc/<pid>/status). */
export function uidHasProcesses(uid: number): boolean {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'));
      if (m && Number(m[1]) === uid) return true;
    } catch {
      /* ended meanwhile */
    }
  }
  return false;
}

export class UidPool {
  /** uids this node holds, by task. */
  private held = new Map<string, number>();
  /** Where the next search for a free uid starts (claims are spread instead of retried from the base each time). */
  private cursor = 0;

  constructor(
    private opts: UidPoolOptions,
    private nodeId: string,
  ) {
    mkdirSync(opts.claimsDir, { recursive: true, mode: 0o700 });
    const st = lstatSync(opts.claimsDir);
    if (!st.isDirectory() || st.uid !== process.getuid?.()) throw new Error(`${opts.claimsDir} is not ours`);
  }

  private file(uid: number): string {
    return path.join(this.opts.claimsDir, String(uid));
  }

  private write(uid: number, taskId: string, flag: 'wx' | 'w'): boolean {
    let fd: number;
    try {
      fd = openSync(this.file(uid), flag, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, node: this.nodeId, task: taskId } satisfies Claim));
    } finally {
      closeSync(fd);
    }
    return true;
  }

  /** A claim left by a node process that is gone, on a uid that runs nothing: free again. */
  private stale(uid: number): boolean {
    const c = readClaim(this.file(uid));
    if (c && processAlive(c.pid)) return false;
    return !uidHasProcesses(uid);
  }

  /** A uid for a new task, claimed for the host; throws when the pool is exhausted. */
  claim(taskId: string): TaskIdentity {
    const known = this.held.get(taskId);
    if (known !== undefined) return identityOf(known);
    const { base, size } = this.opts;
    for (let i = 0; i < size; i++) {
      const uid = base + ((this.cursor + i) % size);
      if (this.write(uid, taskId, 'wx') || (this.stale(uid) && this.write(uid, taskId, 'w'))) {
        this.cursor = (this.cursor + i + 1) % size;
        this.held.set(taskId, uid);
        return identityOf(uid);
      }
    }
    throw new Error('no free task uid: every uid of the pool runs a task');
  }

  /**
   * The uid of a task taken over after a restart of the node: its claim is ours again (the process that wrote it
   * is gone), unless another node took the uid meanwhile, which happens only when nothing of the task ran any more.
   */
  adopt(taskId: string, uid: number): TaskIdentity {
    const c = readClaim(this.file(uid));
    if (!c || (c.node === this.nodeId && c.task === taskId) || this.stale(uid)) this.write(uid, taskId, 'w');
    this.held.set(taskId, uid);
    return identityOf(uid);
  }

  /** The task is over and its folder removed: its uid goes back to the pool. */
  release(taskId: string): void {
    const uid = this.held.get(taskId);
    if (uid === undefined) return;
    this.held.delete(taskId);
    const c = readClaim(this.file(uid));
    if (c && c.node === this.nodeId && c.task === taskId) rmSync(this.file(uid), { force: true });
  }

  /** Claims an earlier process of this node left for tasks it no longer knows: given back. */
  sweep(keep: ReadonlySet<string>): void {
    for (const name of readdirSync(this.opts.claimsDir)) {
      const c = readClaim(path.join(this.opts.claimsDir, name));
      if (c && c.node === this.nodeId && c.pid !== process.pid && !keep.has(c.task))
        rmSync(path.join(this.opts.claimsDir, name), { force: true });
    }
  }
}

/** Pool uids have a group of the same number and no entry in the host's user database. */
export function identityOf(uid: number): TaskIdentity {
  return { user: `crawldeck-task-${uid}`, uid, gid: uid };
}

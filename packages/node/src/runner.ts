/**
 * One task on this node: its process (run-process.ts), its spool and folders (run-folders.ts) and the two shippers
 * of its output and items, woken as the spool grows (spool-watch.ts). A task is new or, after a restart of the
 * node, taken over from its saved state.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { FinalStatus, ItemSizeLimit, ShipAck, ShipBatch, TaskAssignment, TaskLimits } from '@crawldeck/shared';
import { appendLines, diskFaultMessage, probeSpool, writeJson } from './spool.ts';
import { Shipper } from './shipper.ts';
import { SpoolWatch } from './spool-watch.ts';
import { endOf, RunStop, TIMED_OUT } from './run-stop.ts';
import { ItemLimit, itemLimitOf } from './item-limit.ts';
import { missingProgramError } from './missing-program.ts';
import { groupAlive, procStartTime, sameProcess } from './proc.ts';
import {
  exitCodeOf,
  failureText,
  killGroup,
  recordedExit,
  spawnTask,
  taskCommand,
  taskProcessEnv,
  type RunnerEnv,
} from './run-process.ts';
import type { TaskIdentity } from './sandbox.ts';
import { TaskCgroup } from './tenancy/cgroups.ts';
import { environmentDirs, killReason, taskLimits } from './tenancy/confine.ts';
import { clearRunAsync, copyWorkspace, createRunFiles, type SavedRun } from './run-folders.ts';
import type { TaskEnvironment } from './environments/spider-env.ts';

export { resolveCommand, type RunnerEnv } from './run-process.ts';
export { clearRuns, type SavedRun } from './run-folders.ts';

export interface RunCallbacks {
  post(kind: 'logs' | 'items', taskId: string, batch: ShipBatch): Promise<ShipAck>;
  started(pid: number, cmd: string, startTs: number): void;
  /** Everything shipped and acknowledged; the final report may be sent. */
  done(): void;
  gone(): void;
}

/** How often a process we did not start (taken over after a restart of the node) is looked at. */
const ADOPTED_POLL_MS = 500;
/** Other processes of the group may finish their output this long after the main one ended; then they are killed. */
const LEFTOVER_MS = 2000;

/**
 * One task on this node. The process writes its output straight into the log spool, so the spool survives the
 * node; the shippers send it from the offsets the master acknowledged.
 */
export class TaskRun {
  readonly dir: string;
  readonly logFile: string;
  readonly itemsFile: string;
  readonly exitFile: string;
  readonly runDir: string;
  readonly workspace: string;
  /** The folder its process starts in: the workspace or the spider's source folder in it. */
  cwd: string;
  readonly home: string;
  /** The uid the task's processes run as: its own from the node's pool, or the one task user without a sandbox. */
  readonly identity: TaskIdentity | undefined;
  /** The task's control groups, when the node has them. */
  private cgroup: TaskCgroup | undefined;
  private limits: Required<TaskLimits> | undefined;
  child: ChildProcess | undefined;
  pid: number | null = null;
  procStart: string | null = null;
  state: SavedRun['state'] = 'syncing';
  status: FinalStatus = 'finished';
  exitCode: number | null = null;
  error = '';
  finishTs = 0;
  cancelled = false;
  /** When the maximum run time is up (epoch ms), 0 for none; the node stops the task then. */
  deadline = 0;
  timedOut = false;
  /** Every spooled line and item is acknowledged by the master: the final report may be (re)sent. */
  drained = false;
  /** The spool's disk could not take more (full, read-only): the task fails with this message. */
  private fault = '';
  private ending = false;
  private logShipper: Shipper;
  private itemShipper: Shipper;
  private itemLimit: ItemLimit;
  private readonly spoolWatch: SpoolWatch;
  private readonly stop: RunStop;
  private adoptedPoll: NodeJS.Timeout | undefined;

  /**
   * A new task (saved) or, with `saved`, one that an earlier run of this node left in its spool. `itemLimit`:
   * the largest item the master stores for it.
   */
  constructor(
    readonly taskId: string,
    tasksDir: string,
    private env: RunnerEnv,
    private cb: RunCallbacks,
    saved?: SavedRun,
    itemLimit?: ItemSizeLimit,
  ) {
    this.dir = path.join(tasksDir, taskId);
    this.logFile = path.join(this.dir, 'log.txt');
    this.runDir = path.join(env.runsDir, taskId);
    this.workspace = path.join(this.runDir, 'ws');
    this.cwd = this.workspace;
    this.home = path.join(this.runDir, 'home');
    this.itemsFile = path.join(this.runDir, 'items.jsonl');
    this.exitFile = path.join(this.runDir, 'exit');
    const pool = env.jail?.pool;
    // Throws when every uid of the pool is taken: the caller reports the task failed.
    this.identity = !pool ? env.identity : saved?.uid ? pool.adopt(taskId, saved.uid) : pool.claim(taskId);
    this.limits = saved?.limits ?? undefined;
    if (saved?.limits && env.jail?.cgroups) {
      const cgroup = new TaskCgroup(env.jail.cgroups, taskId, saved.limits);
      if (cgroup.exists()) this.cgroup = cgroup;
    }
    if (saved)
      Object.assign(this, {
        state: saved.state,
        pid: saved.pid,
        procStart: saved.procStart,
        status: saved.status,
        exitCode: saved.exitCode,
        error: saved.error,
        finishTs: saved.finishTs,
        cancelled: saved.cancelled,
        drained: saved.drained,
        deadline: saved.deadline ?? 0,
        timedOut: saved.timedOut ?? false,
      });
    const save = () => this.saveState();
    this.logShipper = new Shipper(
      this.logFile,
      { ...(saved?.log ?? { bytes: 0, lines: 0 }) },
      (b) => cb.post('logs', this.taskId, b),
      save,
      () => this.onGone(),
    );
    const limit = itemLimitOf(saved?.itemLimit ?? itemLimit);
    this.itemLimit = new ItemLimit(limit, saved?.refused, (l) => this.note(l), save);
    this.itemShipper = new Shipper(
      this.itemsFile,
      { ...(saved?.items ?? { bytes: 0, lines: 0 }) },
      (b) => cb.post('items', this.taskId, b),
      save,
      () => this.onItemsGone(),
      undefined,
      undefined,
      this.itemLimit.rule(),
    );
    const spool = [
      [this.logFile, this.logShipper],
      [this.itemsFile, this.itemShipper],
    ] as const;
    this.spoolWatch = new SpoolWatch(spool, this.dir, (message) => this.onFault(message));
    const run = { pid: () => this.pid, cgroup: () => this.cgroup, running: () => this.state === 'running' };
    this.stop = new RunStop(run, env.graceMs);
    if (saved) return;
    // Throws when the spool cannot be created (disk full, read-only): the caller reports the task failed.
    createRunFiles(this.dir, this.logFile, this.runDir, [this.itemsFile, this.exitFile], this.identity);
    writeJson(path.join(this.dir, 'state.json'), this.saved());
  }

  get shipped(): { logLines: number; items: number } {
    return { logLines: this.logShipper.state.lines, items: this.itemShipper.state.lines };
  }

  private saved(): SavedRun {
    const { taskId, state, pid, procStart, status, exitCode, error, finishTs, cancelled, drained } = this;
    return {
      taskId,
      state,
      pid,
      procStart,
      status,
      exitCode,
      error,
      finishTs,
      cancelled,
      drained,
      uid: this.identity && this.env.jail?.pool ? this.identity.uid : null,
      ...(this.deadline ? { deadline: this.deadline } : {}),
      ...(this.timedOut ? { timedOut: true } : {}),
      limits: this.limits ?? null,
      log: this.logShipper.state,
      items: this.itemShipper.state,
      itemLimit: this.itemLimit.limit,
      refused: this.itemLimit.state,
    };
  }

  private saveState(): void {
    try {
      writeJson(path.join(this.dir, 'state.json'), this.saved());
    } catch (err) {
      this.diskError(err);
    }
  }

  /** A spool write failed: a full or read-only disk fails the task (other errors leave it be). */
  private diskError(err: unknown): void {
    const message = diskFaultMessage(err);
    if (message) this.onFault(message);
  }

  private onFault(message: string): void {
    if (this.fault || this.state === 'done') return;
    this.fault = message;
    // What the process writes now is lost: stop it; its final report names the fault.
    if (this.state === 'running') this.stop.signal('SIGKILL');
  }

  private onGone(): void {
    this.kill('SIGKILL');
    this.cb.gone();
  }

  /**
   * The master gives up the task's items not stored yet (it was cancelled while its results database failed, and
   * says why on the task): its process is stopped, but every line of its log is still shipped, then the final
   * report with the items that were stored.
   */
  private onItemsGone(): void {
    this.kill('SIGKILL');
  }

  /** Appends a line of our own (deploy errors, node notices) to the task log. */
  note(line: string): void {
    try {
      appendLines(this.logFile, [line]);
    } catch (err) {
      this.diskError(err);
    }
    this.logShipper.kick();
  }

  /** Copies the synced spider files into this task's own working folder and hands it to the task user. */
  async prepare(spiderFiles: string): Promise<void> {
    await copyWorkspace(spiderFiles, this.workspace, this.home, this.identity);
  }

  /**
   * Starts the task's process, in the spider's own environment or the node's (`te`, environments/spider-env.ts),
   * in `folder` of its workspace (source-folder.ts).
   */
  start(t: TaskAssignment, te: TaskEnvironment = { path: [], nodePath: [] }, folder = this.workspace): void {
    this.cwd = folder;
    const cmd = taskCommand(t, te.python ?? this.env.python);
    const jail = this.env.jail;
    let child: ChildProcess;
    try {
      if (jail?.cgroups && this.identity) {
        this.limits = taskLimits(jail.defaults, t.limits);
        this.cgroup = new TaskCgroup(jail.cgroups, this.taskId, this.limits);
        this.cgroup.create();
      }
      const confinement = {
        identity: this.identity,
        cgroupProcs: this.cgroup?.procsFiles() ?? [],
        readable: jail ? environmentDirs(te, jail) : [],
      };
      child = spawnTask(cmd, this, taskProcessEnv(this.env, this, t, te), jail, confinement);
    } catch (err) {
      this.fail(diskFaultMessage(err) ?? `failed to start: ${(err as Error).message}`);
      return;
    }
    this.child = child;
    child.on('error', (err) => {
      if (!child.pid) void this.ended(null, null, err.message);
    });
    if (!child.pid) return;
    this.pid = child.pid;
    this.procStart = procStartTime(child.pid) ?? null;
    this.state = 'running';
    const startTs = Date.now();
    if (t.timeoutSeconds && t.timeoutSeconds > 0) this.deadline = startTs + t.timeoutSeconds * 1000;
    // Saved before the master hears of it: a node killed from here on finds the process in its spool.
    this.saveState();
    this.cb.started(child.pid, cmd, startTs);
    this.spoolWatch.start();
    this.armDeadline();
    child.on('exit', (code, signal) => void this.ended(code, signal));
  }

  /**
   * Takes over a task an earlier run of this node left: ships what is left of it and, while its process still runs,
   * looks at it until it ends. Returns false for a task that never started (the master queues it again).
   */
  resume(): boolean {
    if (this.state === 'syncing') return false;
    if (this.state === 'done') {
      if (!this.drained) void this.complete();
      return true;
    }
    this.spoolWatch.start();
    this.armDeadline();
    const poll = () => {
      if (this.pid && sameProcess(this.pid, this.procStart)) return;
      clearInterval(this.adoptedPoll);
      void this.ended(recordedExit(this.exitFile), null);
    };
    this.adoptedPoll = setInterval(poll, ADOPTED_POLL_MS);
    this.adoptedPoll.unref();
    poll();
    return true;
  }

  /**
   * Stops the task when its maximum run time is up: TERM to its whole process tree, KILL after the grace period
   * (as a cancel does); it then ends as "timed out". A task taken over after a restart of the node keeps its
   * deadline.
   */
  private armDeadline(): void {
    this.stop.armDeadline(this.deadline, () => {
      if (this.state !== 'running' || this.ending) return;
      this.timedOut = true;
      this.saveState();
      this.note(`${TIMED_OUT}; stopping its processes`);
      this.kill('SIGTERM');
    });
  }

  /** The main process ended: wait a moment for the rest of its group, then settle the final status and ship. */
  private async ended(code: number | null, signal: NodeJS.Signals | null, spawnError = ''): Promise<void> {
    if (this.ending || this.state === 'done') return;
    this.ending = true;
    if (this.pid) {
      const until = Date.now() + LEFTOVER_MS;
      while (groupAlive(this.pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      killGroup(this.pid, 'SIGKILL');
    }
    this.exitCode = exitCodeOf(code, signal);
    const notFound = missingProgramError(this.logFile, this.exitCode, this.env.nodeName);
    const { status, error } = endOf({
      cancelled: this.cancelled,
      timedOut: this.timedOut,
      fault: this.fault,
      exitedWithZero: code === 0,
      // A process that died of a full or read-only spool (its own writes failed) is told as such, one the kernel
      // stopped at a limit of the task by that limit.
      failure: () =>
        probeSpool(this.dir) ??
        killReason(this.cgroup?.verdict(), this.limits) ??
        (spawnError || notFound || failureText(this.exitCode)),
    });
    // Said in the log too, as an error line ("error" counts it), after what the shell wrote.
    if (notFound && error === notFound) this.note(`error: ${notFound}`);
    this.status = status;
    if (error !== undefined) this.error = error;
    await this.complete();
  }

  fail(error: string, status: FinalStatus = 'error'): void {
    this.note(error);
    this.status = status;
    this.error = error;
    void this.complete();
  }

  private async complete(): Promise<void> {
    this.state = 'done';
    this.finishTs ||= Date.now();
    this.stop.clear();
    this.stopWatching();
    this.saveState();
    await Promise.all([this.logShipper.drain(), this.itemShipper.drain()]);
    // The error lines of items refused while the items drained.
    await this.logShipper.drain();
    this.error = this.itemLimit.withSummary(this.error);
    this.drained = true;
    this.saveState();
    this.cb.done();
  }

  private stopWatching(): void {
    this.spoolWatch.stop();
    if (this.adoptedPoll) clearInterval(this.adoptedPoll);
  }

  /** SIGTERM to the whole process group, SIGKILL after the grace period. */
  cancel(): void {
    this.cancelled = true;
    this.kill('SIGTERM');
  }

  /** `signal` to the task's whole process tree while it runs; KILL follows a TERM after the grace period. */
  kill(signal: NodeJS.Signals): void {
    this.stop.kill(signal);
  }

  /** Forgets the task: its spool and its folder go (what cannot be removed now goes at the node's next start). */
  dispose(): void {
    this.logShipper.stop();
    this.itemShipper.stop();
    this.stopWatching();
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      /* a read-only disk: removed at a later start */
    }
    const cgroup = this.cgroup;
    void clearRunAsync(this.runDir, this.identity)
      .catch(() => undefined)
      .then(() => {
        cgroup?.remove();
        this.env.jail?.pool?.release(this.taskId);
      });
  }
}

/**
 * The tasks of this node: accepting or rejecting an assignment, syncing the spider's files (one sync per spider at
 * a time) and its environment, starting the run, the master's cancel / drop / acknowledgement, and taking over the
 * tasks an earlier run of the node left in its spool.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ItemSizeLimit, NodeToMaster, TaskAssignment } from '@crawldeck/shared';
import { syncWorkspace } from './sync.ts';
import { TaskRun, clearRuns, type RunnerEnv, type SavedRun } from './runner.ts';
import { loadSavedRun } from './run-folders.ts';
import { diskFaultMessage, probeSpool } from './spool.ts';
import type { MasterHttp } from './master-http.ts';
import type { EnvJobRunner } from './environments/jobs.ts';
import { taskEnvironment, type TaskEnvironment } from './environments/spider-env.ts';
import { sourceFolderIn } from './source-folder.ts';

type Level = 'info' | 'warn' | 'error' | 'debug';
export type NodeLog = (level: Level, msg: string, extra?: Record<string, unknown>) => void;

export interface AssignmentPlaces {
  tasksDir: string;
  wsDir: string;
  workDir: string;
}

/** What the master lets this node do; it changes on registering and with the node's settings. */
export interface NodeLimits {
  enabled: boolean;
  maxRunners: number;
}

export class Assignments {
  readonly runs = new Map<string, TaskRun>();
  private spiderLocks = new Map<string, Promise<unknown>>();

  constructor(
    private places: AssignmentPlaces,
    private runEnv: RunnerEnv,
    private limits: NodeLimits,
    private master: MasterHttp,
    private envJobs: EnvJobRunner,
    private send: (msg: NodeToMaster) => boolean,
    private log: NodeLog,
  ) {}

  /** The tasks whose process has not ended yet. */
  active(): TaskRun[] {
    return [...this.runs.values()].filter((r) => r.state !== 'done');
  }

  sendFinished(run: TaskRun): void {
    this.send({
      type: 'task.finished',
      taskId: run.taskId,
      status: run.status,
      exitCode: run.exitCode,
      error: run.error,
      ...run.shipped,
      finishTs: run.finishTs,
    });
  }

  /** Final reports that the master did not acknowledge before the connection broke. */
  resendFinished(): void {
    for (const run of this.runs.values()) if (run.drained) this.sendFinished(run);
  }

  assign(task: TaskAssignment): void {
    if (this.runs.has(task.taskId)) return;
    const { enabled, maxRunners } = this.limits;
    if (!enabled || this.active().length >= maxRunners) {
      const reason = enabled ? 'node is at its max runners' : 'node is disabled';
      this.send({ type: 'task.rejected', taskId: task.taskId, reason });
      return;
    }
    let run: TaskRun;
    try {
      run = this.makeRun(task.taskId, undefined, task.itemLimit);
    } catch (err) {
      this.spoolNotCreated(task.taskId, err);
      return;
    }
    this.send({ type: 'task.accepted', taskId: task.taskId });
    this.deployAndRun(run, task).catch((err: unknown) =>
      this.log('error', 'task failed to start', { taskId: task.taskId, err: String(err) }),
    );
  }

  /** No spool for a task (its disk is full or read-only): the task fails at once; the node stays up. */
  private spoolNotCreated(taskId: string, err: unknown): void {
    const { tasksDir } = this.places;
    const error =
      diskFaultMessage(err) ??
      probeSpool(tasksDir) ??
      `the node could not create the task's spool: ${(err as Error).message}`;
    this.log('error', 'task spool not created', { taskId, error });
    this.removeSpool(taskId);
    const finishTs = Date.now();
    this.send({
      type: 'task.finished',
      taskId,
      status: 'error',
      exitCode: null,
      error,
      logLines: 0,
      items: 0,
      finishTs,
    });
  }

  private removeSpool(taskId: string): void {
    try {
      rmSync(path.join(this.places.tasksDir, taskId), { recursive: true, force: true });
    } catch {
      /* read-only: removed at the next start */
    }
  }

  private async deployAndRun(run: TaskRun, t: TaskAssignment): Promise<void> {
    if (!(await this.deploy(run, t))) return;
    let environment: TaskEnvironment;
    let folder: string;
    try {
      folder = sourceFolderIn(run.workspace, t.src);
      const build = {
        places: { workDir: this.places.workDir, python: this.runEnv.python },
        identity: run.identity,
        settings: await this.envJobs.settingsFor(t.envSettingsVersion),
        confinement: this.runEnv.jail && { jail: this.runEnv.jail, taskId: t.taskId, limits: t.limits },
        note: (l: string) => run.note(l),
      };
      environment = await taskEnvironment(folder, t.spiderId, build);
    } catch (err) {
      run.fail((err as Error).message);
      return;
    }
    if (run.cancelled) {
      run.fail('cancelled before start', 'cancelled');
      return;
    }
    run.start(t, environment, folder);
  }

  /** Syncs the spider's files and copies them for the task; reports the deploy; false when it failed. */
  private async deploy(run: TaskRun, t: TaskAssignment): Promise<boolean> {
    const startTs = Date.now();
    const deployed = { type: 'task.deployed' as const, taskId: t.taskId, spiderId: t.spiderId, startTs };
    try {
      const r = await this.syncForTask(run, t);
      this.send({ ...deployed, ...r, finishTs: Date.now(), error: '' });
      return true;
    } catch (err) {
      const message = `deploy failed: ${(err as Error).message}`;
      const nothing = { filesTotal: t.files.length, filesChanged: 0, bytes: 0 };
      this.send({ ...deployed, ...nothing, finishTs: Date.now(), error: message });
      run.fail(message);
      return false;
    }
  }

  private syncForTask(run: TaskRun, t: TaskAssignment) {
    const { wsDir } = this.places;
    const root = path.join(wsDir, t.spiderId);
    const prev = this.spiderLocks.get(t.spiderId) ?? Promise.resolve();
    // The task's own copy is taken under the same lock, so the next task's sync cannot change files mid-copy.
    const sync = prev
      .catch(() => undefined)
      .then(async () => {
        const manifest = path.join(wsDir, `${t.spiderId}.manifest.json`);
        const r = await syncWorkspace(root, manifest, t.files, (hash) => this.master.fetchBlob(hash));
        await run.prepare(root);
        return r;
      });
    this.spiderLocks.set(t.spiderId, sync);
    return sync;
  }

  /** A task of this node, new or (with `saved`) taken over from the spool of an earlier run of the node. */
  private makeRun(taskId: string, saved?: SavedRun, itemLimit?: ItemSizeLimit): TaskRun {
    const callbacks = {
      post: this.master.ship.bind(this.master),
      started: (pid: number, cmd: string, startTs: number) =>
        this.send({ type: 'task.started', taskId, pid, cmd, startTs }),
      done: () => this.sendFinished(run),
      gone: () => this.forget(taskId),
    };
    const run: TaskRun = new TaskRun(taskId, this.places.tasksDir, this.runEnv, callbacks, saved, itemLimit);
    this.runs.set(taskId, run);
    return run;
  }

  cancel(taskId: string): void {
    const run = this.runs.get(taskId);
    if (!run) return;
    run.cancelled = true;
    run.cancel();
  }

  /** The master has the final report (or dropped the task): the task and its spool are forgotten. */
  forget(taskId: string, signal?: NodeJS.Signals): void {
    const run = this.runs.get(taskId);
    if (!run) return;
    if (signal) run.kill(signal);
    this.runs.delete(taskId);
    run.dispose();
  }

  /**
   * Takes over the tasks an earlier run of this node left in its spool (docs/tasks.md "Node restarts"): processes
   * still alive are watched until they end, everything spooled is shipped from the acknowledged offsets, and the
   * master, told of them on registering, decides (cancelled or deleted meanwhile: stopped). Tasks that never
   * started are forgotten (the master queues them again); the work folders of forgotten tasks are removed.
   */
  resume(): void {
    const { tasksDir } = this.places;
    for (const taskId of readdirSync(tasksDir)) {
      const saved = loadSavedRun(tasksDir, taskId);
      const run = saved && this.makeRun(taskId, saved);
      if (run?.resume()) {
        this.log('info', 'task taken over from the spool', { taskId, state: saved!.state, pid: saved!.pid });
        continue;
      }
      this.runs.delete(taskId);
      this.removeSpool(taskId);
    }
    clearRuns(this.runEnv.runsDir, this.runEnv.identity, new Set(this.runs.keys()));
    this.runEnv.jail?.pool?.sweep(new Set(this.runs.keys()));
  }

  /** The node stops: every process is killed and every task forgotten. */
  killAll(): void {
    for (const run of this.runs.values()) {
      run.kill('SIGKILL');
      run.dispose();
    }
    this.runs.clear();
  }
}

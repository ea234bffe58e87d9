import { spawn, type ChildProcess } from 'node:child_process';
import { cp, rmdir } from 'node:fs/promises';
import {
  closeSync,
  lchownSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  watch,
  writeFileSync,
  type FSWatcher,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  withCrawldeckPipeline,
  type FinalStatus,
  type ShipAck,
  type ShipBatch,
  type TaskAssignment,
} from '@crawldeck/shared';
import { Shipper, appendLines, diskFaultMessage, probeSpool, writeJson, type ShipperState } from './spool.ts';
import { groupAlive, procStartTime, sameProcess } from './proc.ts';
import {
  asTaskUser,
  baseEnv,
  giveTree,
  passThroughDir,
  removeUserTree,
  removeUserTreeAsync,
  type TaskIdentity,
} from './sandbox.ts';
import type { TaskEnvironment } from './environments/spider-env.ts';

export interface RunnerEnv {
  nodeId: string;
  python: string;
  sdkPythonPath: string;
  sdkNodePath: string;
  /** Our helper commands (crawldeck-config-spider), put first on PATH. */
  binPath: string;
  graceMs: number;
  /** Where task processes run, outside the node's data dir: one folder per task (docs/spiders.md "Isolation"). */
  runsDir: string;
  /** The unprivileged user tasks run as; undefined when the node is not root. */
  identity: TaskIdentity | undefined;
}

export interface RunCallbacks {
  post(kind: 'logs' | 'items', taskId: string, batch: ShipBatch): Promise<ShipAck>;
  started(pid: number, cmd: string, startTs: number): void;
  /** Everything shipped and acknowledged; the final report may be sent. */
  done(): void;
  gone(): void;
}

/** `python …`, `python3 …` and `scrapy …` run with the node's configured interpreter. */
export function resolveCommand(cmd: string, python: string): string {
  const q = /[^\w@%+=:,./-]/.test(python) ? `'${python.replace(/'/g, `'\\''`)}'` : python;
  const m = /^\s*(python3?|scrapy)(?=\s|$)/.exec(cmd);
  if (!m) return cmd;
  return (m[1] === 'scrapy' ? `${q} -m scrapy` : q) + cmd.slice(m[0].length);
}

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
  /** Offsets the master acknowledged in the log spool and the items file. */
  log: ShipperState;
  items: ShipperState;
}

/** How often a process we did not start (taken over after a restart of the node) is looked at. */
const ADOPTED_POLL_MS = 500;
/** Other processes of the group may finish their output this long after the main one ended; then they are killed. */
const LEFTOVER_MS = 2000;

/**
 * Runs the command with stdout and stderr on the log spool and records its exit code in `$2`, so a node that was
 * down when the command ended still learns how it ended.
 */
const WRAPPER = '/bin/sh -c "$1"; s=$?; echo "$s" > "$2"; exit "$s"';

/**
 * One task on this node: its process, its spool files and their shippers. The spool (`log.txt`, `state.json`) stays
 * in the node's private data dir; the process gets its own folder `<runs>/<task id>/` (ours, others may only pass
 * through) holding `ws/` (a copy of the spider's files, the working folder), `home/`, `items.jsonl` and `exit`. The
 * last four belong to the task user; the files sit in our folder so the task can write them but not replace them
 * with a link to something only we may read. The process writes its output straight into the log spool (its
 * stdout and stderr are a file descriptor of it, not pipes through the node), so the spool survives the node.
 */
export class TaskRun {
  readonly dir: string;
  readonly logFile: string;
  readonly itemsFile: string;
  readonly exitFile: string;
  readonly runDir: string;
  readonly workspace: string;
  readonly home: string;
  child: ChildProcess | undefined;
  pid: number | null = null;
  procStart: string | null = null;
  state: SavedRun['state'] = 'syncing';
  status: FinalStatus = 'finished';
  exitCode: number | null = null;
  error = '';
  finishTs = 0;
  cancelled = false;
  /** Every spooled line and item is acknowledged by the master: the final report may be (re)sent. */
  drained = false;
  /** The spool's disk could not take more (full, read-only): the task fails with this message. */
  private fault = '';
  private ending = false;
  private logShipper: Shipper;
  private itemShipper: Shipper;
  private watchers: FSWatcher[] = [];
  private killTimer: NodeJS.Timeout | undefined;
  private tick: NodeJS.Timeout | undefined;
  private adoptedPoll: NodeJS.Timeout | undefined;

  /** A new task (saved) or, with `saved`, one that an earlier run of this node left in its spool. */
  constructor(
    readonly taskId: string,
    tasksDir: string,
    private env: RunnerEnv,
    private cb: RunCallbacks,
    saved?: SavedRun,
  ) {
    this.dir = path.join(tasksDir, taskId);
    this.logFile = path.join(this.dir, 'log.txt');
    this.runDir = path.join(env.runsDir, taskId);
    this.workspace = path.join(this.runDir, 'ws');
    this.home = path.join(this.runDir, 'home');
    this.itemsFile = path.join(this.runDir, 'items.jsonl');
    this.exitFile = path.join(this.runDir, 'exit');
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
      });
    const save = () => this.saveState();
    this.logShipper = new Shipper(
      this.logFile,
      { ...(saved?.log ?? { bytes: 0, lines: 0 }) },
      (b) => cb.post('logs', this.taskId, b),
      save,
      () => this.onGone(),
    );
    this.itemShipper = new Shipper(
      this.itemsFile,
      { ...(saved?.items ?? { bytes: 0, lines: 0 }) },
      (b) => cb.post('items', this.taskId, b),
      save,
      () => this.onGone(),
    );
    if (saved) return;
    // Throws when the spool cannot be created (disk full, read-only): the caller reports the task failed.
    mkdirSync(this.dir);
    writeFileSync(this.logFile, '', { flag: 'a' });
    passThroughDir(this.runDir);
    for (const file of [this.itemsFile, this.exitFile]) {
      writeFileSync(file, '', { flag: 'a', mode: 0o600 });
      if (env.identity) lchownSync(file, env.identity.uid, env.identity.gid);
    }
    writeJson(path.join(this.dir, 'state.json'), this.saved());
  }

  /** The saved state of a task in the spool, or undefined when there is none that can be used. */
  static load(tasksDir: string, taskId: string): SavedRun | undefined {
    try {
      const s = JSON.parse(readFileSync(path.join(tasksDir, taskId, 'state.json'), 'utf8')) as SavedRun;
      return s && s.taskId === taskId && s.log && s.items ? s : undefined;
    } catch {
      return undefined;
    }
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
      log: this.logShipper.state,
      items: this.itemShipper.state,
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
    if (this.state === 'running') this.killGroup('SIGKILL');
  }

  private onGone(): void {
    this.kill('SIGKILL');
    this.cb.gone();
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
    await removeUserTreeAsync(this.workspace, this.env.identity);
    await cp(spiderFiles, this.workspace, { recursive: true });
    mkdirSync(this.home, { recursive: true, mode: 0o700 });
    giveTree(this.workspace, this.env.identity);
    giveTree(this.home, this.env.identity);
  }

  /**
   * The process environment, from an allow-list: PATH/HOME/LANG, the task contract (CRAWLDECK_*), global variables
   * and the spider's envs (t.env, merged by the master). Nothing of the node's own environment.
   */
  private processEnv(t: TaskAssignment, te: TaskEnvironment): NodeJS.ProcessEnv {
    const envPath = (name: string, ...add: string[]) => [...add, t.env[name]].filter(Boolean).join(path.delimiter);
    const base = baseEnv(this.home);
    return {
      ...base,
      ...t.env,
      CRAWLDECK_TASK_ID: t.taskId,
      CRAWLDECK_SPIDER_ID: t.spiderId,
      CRAWLDECK_SPIDER_NAME: t.spiderName,
      CRAWLDECK_NODE_ID: this.env.nodeId,
      CRAWLDECK_COLLECTION: t.collection,
      CRAWLDECK_ITEMS: this.itemsFile,
      CRAWLDECK_IS_DEDUP: t.isDedup ? '1' : '0',
      CRAWLDECK_DEDUP_FIELD: t.dedupField,
      CRAWLDECK_DEDUP_METHOD: t.dedupMethod,
      CRAWLDECK_PYTHON: te.python ?? this.env.python,
      PYTHONPATH: envPath('PYTHONPATH', this.env.sdkPythonPath),
      NODE_PATH: envPath('NODE_PATH', this.env.sdkNodePath, ...te.nodePath),
      PATH: [this.env.binPath, ...te.path, t.env.PATH || base.PATH].join(path.delimiter),
      PYTHONUNBUFFERED: '1',
    };
  }

  /** Starts the task's process, in the spider's own environment or the node's (`te`, environments/spider-env.ts). */
  start(t: TaskAssignment, te: TaskEnvironment = { path: [], nodePath: [] }): void {
    // `scrapy crawl` gets our item pipeline added (merged with the project's own); a spider opts out with the
    // environment variable CRAWLDECK_SCRAPY_PIPELINE=0 (docs/spiders.md "Scrapy spiders").
    const full = withCrawldeckPipeline(
      t.param ? `${t.cmd} ${t.param}` : t.cmd,
      t.env.CRAWLDECK_SCRAPY_PIPELINE === '0',
    );
    const cmd = resolveCommand(full, te.python ?? this.env.python);
    let child: ChildProcess;
    let out: number | undefined;
    try {
      out = openSync(this.logFile, 'a');
      child = spawn('/bin/sh', ['-c', WRAPPER, 'crawldeck-task', cmd, this.exitFile], {
        cwd: this.workspace,
        env: this.processEnv(t, te),
        detached: true,
        stdio: ['ignore', out, out],
        ...asTaskUser(this.env.identity),
      });
    } catch (err) {
      this.fail(diskFaultMessage(err) ?? `failed to start: ${(err as Error).message}`);
      return;
    } finally {
      if (out !== undefined) closeSync(out);
    }
    this.child = child;
    child.on('error', (err) => {
      if (!child.pid) void this.ended(null, null, err.message);
    });
    if (!child.pid) return;
    this.pid = child.pid;
    this.procStart = procStartTime(child.pid) ?? null;
    this.state = 'running';
    // Saved before the master hears of it: a node killed from here on finds the process in its spool.
    this.saveState();
    this.cb.started(child.pid, cmd, Date.now());
    this.watchSpool();
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
    this.watchSpool();
    const poll = () => {
      if (this.pid && sameProcess(this.pid, this.procStart)) return;
      clearInterval(this.adoptedPoll);
      void this.ended(this.recordedExit(), null);
    };
    this.adoptedPoll = setInterval(poll, ADOPTED_POLL_MS);
    this.adoptedPoll.unref();
    poll();
    return true;
  }

  /** The exit code the wrapper recorded, or null when the process ended without it (killed with its group). */
  private recordedExit(): number | null {
    try {
      const m = /^(\d{1,3})\s*$/.exec(readFileSync(this.exitFile, 'utf8'));
      return m ? Number(m[1]) : null;
    } catch {
      return null;
    }
  }

  /** Ships the spool as it grows (change events, and once a second for file systems without them). */
  private watchSpool(): void {
    for (const [file, shipper] of [
      [this.logFile, this.logShipper],
      [this.itemsFile, this.itemShipper],
    ] as const) {
      try {
        const w = watch(file, () => shipper.kick());
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch {
        /* the tick below */
      }
    }
    this.tick = setInterval(() => {
      this.logShipper.kick();
      this.itemShipper.kick();
      const fault = probeSpool(this.dir);
      if (fault) this.onFault(fault);
    }, 1000);
    this.tick.unref();
    this.logShipper.kick();
    this.itemShipper.kick();
  }

  /** The main process ended: wait a moment for the rest of its group, then settle the final status and ship. */
  private async ended(code: number | null, signal: NodeJS.Signals | null, spawnError = ''): Promise<void> {
    if (this.ending || this.state === 'done') return;
    this.ending = true;
    if (this.pid) {
      const until = Date.now() + LEFTOVER_MS;
      while (groupAlive(this.pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      this.killGroup('SIGKILL');
    }
    // Killed by a signal: the shell convention 128 + signal number (SIGTERM → 143, SIGKILL → 137).
    this.exitCode = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : null);
    const sig =
      this.exitCode !== null && this.exitCode > 128
        ? Object.entries(os.constants.signals).find(([, n]) => n === this.exitCode! - 128)?.[0]
        : undefined;
    if (this.cancelled) {
      this.status = 'cancelled';
      this.error = 'cancelled';
    } else if (this.fault) {
      this.status = 'error';
      this.error = this.fault;
    } else if (code === 0) {
      this.status = 'finished';
    } else {
      this.status = 'error';
      // A process that died of a full or read-only spool (its own writes failed) is told as such.
      this.error =
        probeSpool(this.dir) ??
        (spawnError ||
          (sig
            ? `killed by ${sig}`
            : this.exitCode === null
              ? 'ended while the node was down; exit status unknown'
              : `exit code ${this.exitCode}`));
    }
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
    if (this.killTimer) clearTimeout(this.killTimer);
    this.stopWatching();
    this.saveState();
    await Promise.all([this.logShipper.drain(), this.itemShipper.drain()]);
    this.drained = true;
    this.saveState();
    this.cb.done();
  }

  private stopWatching(): void {
    if (this.tick) clearInterval(this.tick);
    if (this.adoptedPoll) clearInterval(this.adoptedPoll);
    for (const w of this.watchers.splice(0)) w.close();
  }

  private killGroup(signal: NodeJS.Signals): void {
    if (!this.pid) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      /* already gone */
    }
  }

  /** SIGTERM to the whole process group, SIGKILL after the grace period. */
  cancel(): void {
    this.cancelled = true;
    this.kill('SIGTERM');
  }

  kill(signal: NodeJS.Signals): void {
    if (this.state !== 'running') return;
    this.killGroup(signal);
    if (signal === 'SIGTERM' && !this.killTimer) {
      this.killTimer = setTimeout(() => this.killGroup('SIGKILL'), this.env.graceMs);
      this.killTimer.unref();
    }
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
    void clearRunAsync(this.runDir, this.env.identity).catch(() => undefined);
  }
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
async function clearRunAsync(dir: string, identity: TaskIdentity | undefined): Promise<void> {
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

import { spawn, type ChildProcess } from 'node:child_process';
import { cp, rmdir } from 'node:fs/promises';
import { lchownSync, mkdirSync, readdirSync, rmdirSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withCrawldeckPipeline, type FinalStatus, type ShipAck, type ShipBatch, type TaskAssignment } from '@crawldeck/shared';
import { LineSplitter, Shipper, SpoolWriter, writeJson } from './spool.ts';
import { asTaskUser, baseEnv, giveTree, passThroughDir, removeUserTree, removeUserTreeAsync, type TaskIdentity } from './sandbox.ts';

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

/**
 * One task on this node: its process, its spool files and their shippers. The spool (log, state) stays in the
 * node's private data dir; the process gets its own folder `<runs>/<task id>/` (ours, others may only pass
 * through) holding `ws/` (a copy of the spider's files, the working folder), `home/` and `items.jsonl`. The last
 * three belong to the task user; the items file sits in our folder so the task can write it but not replace it
 * with a link to something only we may read.
 */
export class TaskRun {
  readonly taskId: string;
  readonly dir: string;
  readonly logFile: string;
  readonly itemsFile: string;
  readonly runDir: string;
  readonly workspace: string;
  readonly home: string;
  child: ChildProcess | undefined;
  pid: number | null = null;
  state: 'syncing' | 'running' | 'done' = 'syncing';
  status: FinalStatus = 'finished';
  exitCode: number | null = null;
  error = '';
  finishTs = 0;
  cancelled = false;
  /** Every spooled line and item is acknowledged by the master: the final report may be (re)sent. */
  drained = false;
  private logShipper: Shipper;
  private itemShipper: Shipper;
  private watcher: FSWatcher | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private itemTick: NodeJS.Timeout | undefined;

  constructor(
    readonly task: TaskAssignment,
    tasksDir: string,
    private env: RunnerEnv,
    private cb: RunCallbacks,
  ) {
    this.taskId = task.taskId;
    this.dir = path.join(tasksDir, task.taskId);
    mkdirSync(this.dir, { recursive: true });
    this.logFile = path.join(this.dir, 'log.txt');
    this.runDir = passThroughDir(path.join(env.runsDir, task.taskId));
    this.workspace = path.join(this.runDir, 'ws');
    this.home = path.join(this.runDir, 'home');
    this.itemsFile = path.join(this.runDir, 'items.jsonl');
    writeFileSync(this.logFile, '', { flag: 'a' });
    writeFileSync(this.itemsFile, '', { flag: 'a', mode: 0o600 });
    if (env.identity) lchownSync(this.itemsFile, env.identity.uid, env.identity.gid);
    const save = () => this.saveState();
    this.logShipper = new Shipper(this.logFile, { bytes: 0, lines: 0 }, (b) => cb.post('logs', this.taskId, b), save, () => this.onGone());
    this.itemShipper = new Shipper(this.itemsFile, { bytes: 0, lines: 0 }, (b) => cb.post('items', this.taskId, b), save, () => this.onGone());
  }

  get shipped(): { logLines: number; items: number } {
    return { logLines: this.logShipper.state.lines, items: this.itemShipper.state.lines };
  }

  private saveState(): void {
    try {
      writeJson(path.join(this.dir, 'state.json'), { log: this.logShipper.state, items: this.itemShipper.state, state: this.state, status: this.status });
    } catch {
      /* best effort */
    }
  }

  private onGone(): void {
    this.kill('SIGKILL');
    this.cb.gone();
  }

  /** Appends a line of our own (deploy errors, node notices) to the task log. */
  note(line: string, writer?: SpoolWriter): void {
    const w = writer ?? new SpoolWriter(this.logFile);
    w.write([line]);
    if (!writer) w.close();
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
  private processEnv(): NodeJS.ProcessEnv {
    const t = this.task;
    const envPath = (name: string, add: string) => [add, t.env[name]].filter(Boolean).join(path.delimiter);
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
      CRAWLDECK_PYTHON: this.env.python,
      PYTHONPATH: envPath('PYTHONPATH', this.env.sdkPythonPath),
      NODE_PATH: envPath('NODE_PATH', this.env.sdkNodePath),
      PATH: [this.env.binPath, t.env.PATH || base.PATH].join(path.delimiter),
      PYTHONUNBUFFERED: '1',
    };
  }

  start(): void {
    const t = this.task;
    // `scrapy crawl` gets our item pipeline added (merged with the project's own); a spider opts out with the
    // environment variable CRAWLDECK_SCRAPY_PIPELINE=0 (docs/spiders.md "Scrapy spiders").
    const full = withCrawldeckPipeline(t.param ? `${t.cmd} ${t.param}` : t.cmd, t.env.CRAWLDECK_SCRAPY_PIPELINE === '0');
    const cmd = resolveCommand(full, this.env.python);
    const env = this.processEnv();
    const writer = new SpoolWriter(this.logFile);
    const onLine = (lines: string[]) => (line: string) => lines.push(line);
    const pump = (stream: NodeJS.ReadableStream | null) => {
      if (!stream) return undefined;
      const batch: string[] = [];
      const splitter = new LineSplitter(onLine(batch));
      stream.on('data', (chunk: Buffer) => {
        splitter.push(chunk);
        if (batch.length) {
          writer.write(batch.splice(0));
          this.logShipper.kick();
        }
      });
      return () => {
        splitter.end();
        writer.write(batch.splice(0));
      };
    };
    let child: ChildProcess;
    try {
      child = spawn(cmd, { cwd: this.workspace, env, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...asTaskUser(this.env.identity) });
    } catch (err) {
      this.fail(`failed to start: ${(err as Error).message}`, writer);
      return;
    }
    this.child = child;
    const endOut = pump(child.stdout);
    const endErr = pump(child.stderr);
    this.state = 'running';
    this.pid = child.pid ?? null;
    let spawnError = '';
    child.on('error', (err) => {
      spawnError = err.message;
    });
    if (child.pid) this.cb.started(child.pid, cmd, Date.now());
    try {
      this.watcher = watch(this.itemsFile, () => this.itemShipper.kick());
      this.watcher.on('error', () => undefined);
    } catch {
      /* fall back to the tick below */
    }
    // Safety net for file systems without change events: look at the items file once a second while running.
    this.itemTick = setInterval(() => this.itemShipper.kick(), 1000);
    this.itemTick.unref();
    let exited = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.state === 'done') return;
      endOut?.();
      endErr?.();
      writer.close();
      // Killed by a signal: the shell convention 128 + signal number (SIGTERM → 143, SIGKILL → 137).
      this.exitCode = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : null);
      if (this.cancelled) {
        this.status = 'cancelled';
        this.error = 'cancelled';
      } else if (code === 0) {
        this.status = 'finished';
      } else {
        this.status = 'error';
        this.error = spawnError || (signal ? `killed by ${signal}` : `exit code ${code}`);
      }
      void this.complete();
    };
    child.on('exit', (code, signal) => {
      exited = true;
      // Output still in the pipes arrives before 'close'; leftovers of the group are stopped after a short wait.
      const leftovers = setTimeout(() => {
        this.killGroup('SIGKILL');
        setTimeout(() => finish(code, signal), 200);
      }, 2000);
      child.once('close', () => {
        clearTimeout(leftovers);
        this.killGroup('SIGKILL');
        finish(code, signal);
      });
    });
    child.on('close', (code, signal) => {
      if (!exited) finish(code, signal);
    });
  }

  fail(error: string, writer?: SpoolWriter, status: FinalStatus = 'error'): void {
    this.note(error, writer);
    writer?.close();
    this.status = status;
    this.error = error;
    void this.complete();
  }

  private async complete(): Promise<void> {
    this.state = 'done';
    this.finishTs = Date.now();
    if (this.killTimer) clearTimeout(this.killTimer);
    if (this.itemTick) clearInterval(this.itemTick);
    this.watcher?.close();
    this.saveState();
    await Promise.all([this.logShipper.drain(), this.itemShipper.drain()]);
    this.drained = true;
    this.saveState();
    this.cb.done();
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

  dispose(): void {
    this.logShipper.stop();
    this.itemShipper.stop();
    if (this.itemTick) clearInterval(this.itemTick);
    this.watcher?.close();
    rmSync(this.dir, { recursive: true, force: true });
    void clearRunAsync(this.runDir, this.env.identity);
  }
}

/** Removes the task folders an earlier process of this node left behind (their processes died with it). */
export function clearRuns(runsDir: string, identity: TaskIdentity | undefined): void {
  let names: string[] = [];
  try {
    names = readdirSync(runsDir);
  } catch {
    return;
  }
  for (const name of names) clearRun(path.join(runsDir, name), identity);
}

/** `clearRun` in the background: a big workspace must not stall the node (or the master of an embedded node). */
async function clearRunAsync(dir: string, identity: TaskIdentity | undefined): Promise<void> {
  await Promise.all([removeUserTreeAsync(path.join(dir, 'ws'), identity), removeUserTreeAsync(path.join(dir, 'home'), identity)]);
  rmSync(path.join(dir, 'items.jsonl'), { force: true });
  await rmdir(dir).catch(() => undefined);
}

/** Removes one task folder: what the task user could write is removed as that user (sandbox.ts). */
function clearRun(dir: string, identity: TaskIdentity | undefined): void {
  removeUserTree(path.join(dir, 'ws'), identity);
  removeUserTree(path.join(dir, 'home'), identity);
  rmSync(path.join(dir, 'items.jsonl'), { force: true });
  try {
    rmdirSync(dir);
  } catch {
    /* refilled by a leftover process: left for the next start of the node */
  }
}

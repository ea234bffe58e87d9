/**
 * The task process itself: its command line, its environment (an allow-list), starting it as the task user with
 * its output on the log spool, and how it ended.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { END_REASON_PREFIX, withCrawldeckPipeline, type TaskAssignment, type TaskLimits } from '@crawldeck/shared';
import { asTaskUser, baseEnv, type TaskIdentity } from './sandbox.ts';
import type { TaskEnvironment } from './environments/spider-env.ts';
import { spawnJailed } from './tenancy/jail.ts';
import type { UidPool } from './tenancy/uid-pool.ts';
import type { CgroupVersion } from './tenancy/cgroups.ts';

/** How this node confines tasks: a sandbox per task, a uid per task (root) and control groups (root, when present). */
export interface NodeJail {
  bwrap: string;
  /** The uids of tasks (when the node is root). */
  pool: UidPool | undefined;
  cgroups: CgroupVersion | undefined;
  /** Limits of a task whose assignment sets none. */
  defaults: Required<TaskLimits>;
  /** The node's own folders, replaced by empty ones in every sandbox. */
  hidden: string[];
  /** Folders every task may read: the runtime of Crawldeck and the node's environments. */
  readable: string[];
}

export interface RunnerEnv {
  nodeId: string;
  /** The node's name, as its messages to people call it. */
  nodeName: string;
  python: string;
  sdkPythonPath: string;
  sdkNodePath: string;
  /** Our helper commands (crawldeck-config-spider), put first on PATH. */
  binPath: string;
  graceMs: number;
  /** Where task processes run, outside the node's data dir: one folder per task (docs/spiders.md "Isolation"). */
  runsDir: string;
  /** The unprivileged user tasks run as without a sandbox; undefined when the node is not root. */
  identity: TaskIdentity | undefined;
  /** The sandbox of tasks; undefined when this node cannot sandbox (tasks then run as `identity`). */
  jail: NodeJail | undefined;
}

/** The files of one task that its process sees. */
export interface RunPlaces {
  logFile: string;
  itemsFile: string;
  exitFile: string;
  workspace: string;
  /** The folder the process starts in: the workspace or a folder of it. */
  cwd: string;
  home: string;
  /** The task's own folder (the four above live in it): the only one its processes may write. */
  runDir: string;
}

/**
 * Runs the command with stdout and stderr on the log spool and records its exit code in `$2`, so a node that was
 * down when the command ended still learns how it ended.
 */
const WRAPPER = '/bin/sh -c "$1"; s=$?; echo "$s" > "$2"; exit "$s"';

/** `python …`, `python3 …` and `scrapy …` run with the node's configured interpreter. */
export function resolveCommand(cmd: string, python: string): string {
  const q = /[^\w@%+=:,./-]/.test(python) ? `'${python.replace(/'/g, `'\\''`)}'` : python;
  const m = /^\s*(python3?|scrapy)(?=\s|$)/.exec(cmd);
  if (!m) return cmd;
  return (m[1] === 'scrapy' ? `${q} -m scrapy` : q) + cmd.slice(m[0].length);
}

/** The shell command of a task, with its parameters, our Scrapy pipeline and the interpreter resolved. */
export function taskCommand(t: TaskAssignment, python: string): string {
  // `scrapy crawl` gets our item pipeline added (merged with the project's own); a spider opts out with the
  // environment variable CRAWLDECK_SCRAPY_PIPELINE=0 (docs/spiders.md "Scrapy spiders").
  const full = withCrawldeckPipeline(t.param ? `${t.cmd} ${t.param}` : t.cmd, t.env.CRAWLDECK_SCRAPY_PIPELINE === '0');
  return resolveCommand(full, python);
}

/**
 * The process environment, from an allow-list: PATH/HOME/LANG, the task contract (CRAWLDECK_*), global variables
 * and the spider's envs (t.env, merged by the master). Nothing of the node's own environment.
 */
export function taskProcessEnv(
  env: RunnerEnv,
  places: RunPlaces,
  t: TaskAssignment,
  te: TaskEnvironment,
): NodeJS.ProcessEnv {
  const envPath = (name: string, ...add: string[]) => [...add, t.env[name]].filter(Boolean).join(path.delimiter);
  const base = baseEnv(places.home);
  return {
    ...base,
    ...t.env,
    CRAWLDECK_TASK_ID: t.taskId,
    CRAWLDECK_SPIDER_ID: t.spiderId,
    CRAWLDECK_SPIDER_NAME: t.spiderName,
    CRAWLDECK_NODE_ID: env.nodeId,
    CRAWLDECK_COLLECTION: t.collection,
    CRAWLDECK_ITEMS: places.itemsFile,
    CRAWLDECK_IS_DEDUP: t.isDedup ? '1' : '0',
    CRAWLDECK_DEDUP_FIELD: t.dedupField,
    CRAWLDECK_DEDUP_METHOD: t.dedupMethod,
    CRAWLDECK_PYTHON: te.python ?? env.python,
    // What Crawlab's SDK and spiders read, for spiders brought from Crawlab unchanged (the `crawlab` modules).
    CRAWLAB_TASK_ID: t.taskId,
    CRAWLAB_SPIDER_ID: t.spiderId,
    CRAWLAB_NODE_ID: env.nodeId,
    CRAWLAB_COLLECTION: t.collection,
    CRAWLAB_IS_DEDUP: t.isDedup ? '1' : '0',
    CRAWLAB_DEDUP_FIELD: t.dedupField,
    CRAWLAB_DEDUP_METHOD: t.dedupMethod,
    PYTHONPATH: envPath('PYTHONPATH', env.sdkPythonPath),
    NODE_PATH: envPath('NODE_PATH', env.sdkNodePath, ...te.nodePath),
    PATH: [env.binPath, ...te.path, t.env.PATH || base.PATH].join(path.delimiter),
    PYTHONUNBUFFERED: '1',
  };
}

/** What confines one task: its uid, its control groups and the folders of the environments it runs in. */
export interface TaskConfinement {
  identity: TaskIdentity | undefined;
  cgroupProcs: string[];
  /** Environment folders the task reads (its spider's own environment). */
  readable: string[];
}

/**
 * Starts `cmd` in its own process group (in the node's sandbox when it has one, else as the task user), its stdout
 * and stderr a file descriptor of the log spool (not pipes through the node), so the spool survives the node.
 * Throws when the spool cannot be opened.
 */
export function spawnTask(
  cmd: string,
  places: RunPlaces,
  processEnv: NodeJS.ProcessEnv,
  jail: NodeJail | undefined,
  confinement: TaskConfinement,
): ChildProcess {
  let out: number | undefined;
  const { identity } = confinement;
  try {
    out = openSync(places.logFile, 'a');
    const argv = ['/bin/sh', '-c', WRAPPER, 'crawldeck-task', cmd, places.exitFile];
    if (jail) {
      const plan = {
        identity,
        cgroupProcs: confinement.cgroupProcs,
        hidden: jail.hidden,
        readable: [...jail.readable, ...confinement.readable],
        writable: [places.runDir],
        cwd: places.cwd,
        env: processEnv,
      };
      return spawnJailed(argv, plan, ['ignore', out, out], jail.bwrap);
    }
    return spawn(argv[0], argv.slice(1), {
      cwd: places.cwd,
      env: processEnv,
      detached: true,
      stdio: ['ignore', out, out],
      ...asTaskUser(identity),
    });
  } finally {
    if (out !== undefined) closeSync(out);
  }
}

/** The exit code the wrapper recorded, or null when the process ended without it (killed with its group). */
export function recordedExit(exitFile: string): number | null {
  try {
    const m = /^(\d{1,3})\s*$/.exec(readFileSync(exitFile, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Killed by a signal: the shell convention 128 + signal number (SIGTERM → 143, SIGKILL → 137). */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number | null {
  return code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : null);
}

/** Why a process that did not end with 0 failed, in words. */
export function failureText(exitCode: number | null): string {
  const sig =
    exitCode !== null && exitCode > 128
      ? Object.entries(os.constants.signals).find(([, n]) => n === exitCode - 128)?.[0]
      : undefined;
  if (sig) return `${END_REASON_PREFIX.signal} ${sig} (signal ${exitCode! - 128})`;
  return exitCode === null
    ? 'ended while the node was down; exit status unknown'
    : `${END_REASON_PREFIX.exitCode} ${exitCode}`;
}

/** Sends a signal to a whole process group; a group that is gone already is fine. */
export function killGroup(pid: number | null, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

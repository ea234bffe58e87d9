/**
 * The node service: joins a master over one WebSocket (control, master-session.ts) + HTTP (bulk, master-http.ts),
 * syncs spider files by hash, runs tasks as process groups (assignments.ts, runner.ts), spools their output and
 * items to disk and ships them with acknowledged offsets (spool.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NodeType, TaskLimits } from '@crawldeck/shared';
import { MetricsSampler, defaultPython, systemInfo } from './system.ts';
import { clearRuns, type RunnerEnv } from './runner.ts';
import { nodeJail } from './tenancy/node-jail.ts';
import { passThroughDir, privateDir, taskIdentity } from './sandbox.ts';
import { stageTaskRuntime } from './task-runtime.ts';
import { nodeVariable } from './config.ts';
import { EnvJobRunner } from './environments/jobs.ts';
import { defaultWorkDir } from './environments/places.ts';
import { MasterHttp, parseMasterUrls } from './master-http.ts';
import { MasterSession } from './master-session.ts';
import { NodeKeys } from './credential.ts';
import { Assignments, type NodeLimits, type NodeLog } from './assignments.ts';

export interface NodeOptions {
  /** The master's URL, or several masters sharing one store, comma-separated: the node moves on when one is gone. */
  master: string;
  key: string;
  dataDir: string;
  name?: string;
  type?: NodeType;
  maxRunners?: number;
  python?: string;
  /** Grace period between SIGTERM and SIGKILL on cancel. */
  graceMs?: number;
  /** User that task processes run as when the node is root (default `CRAWLDECK_TASK_USER`, else `crawldeck-task`). */
  taskUser?: string;
  /** Folder of the task processes' working folders, outside the data dir (default: in the system temp dir). */
  workDir?: string;
  /** Limits of a task whose assignment sets none (0: no limit). */
  limits?: TaskLimits;
  log?: NodeLog;
  /** The master refused the node key (401 / 403): the node no longer connects; the caller decides what follows. */
  onKeyRefused?: (reason: string) => void;
}

export interface RunningNode {
  nodeId: string;
  stop(): Promise<void>;
}

function stableNodeId(dataDir: string): string {
  const file = path.join(dataDir, 'node-id');
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{24}$/.test(id)) return id;
  }
  const ts = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0');
  const id = ts + randomBytes(8).toString('hex');
  writeFileSync(file, id + '\n');
  return id;
}

const consoleLog: NodeLog = (level, msg, extra) =>
  console.error(`[node ${level}] ${msg}${extra ? ' ' + JSON.stringify(extra) : ''}`);

/** The node's folders: its private data dir (node id, spools, synced spider files) and the work dir of tasks. */
function nodePlaces(opts: NodeOptions) {
  // The data dir is the node's alone; tasks run elsewhere as the task user.
  const dataDir = privateDir(path.resolve(opts.dataDir));
  const workDir = passThroughDir(
    path.resolve(opts.workDir || nodeVariable('CRAWLDECK_NODE_WORK_DIR') || defaultWorkDir(dataDir)),
  );
  const places = {
    dataDir,
    workDir,
    runsDir: passThroughDir(path.join(workDir, 'runs')),
    tasksDir: path.join(dataDir, 'tasks'),
    wsDir: path.join(dataDir, 'workspaces'),
  };
  // The spools of an earlier run of this node are kept: its tasks are taken over (Assignments.resume).
  mkdirSync(places.tasksDir, { recursive: true });
  mkdirSync(places.wsDir, { recursive: true });
  return places;
}

export async function startNode(opts: NodeOptions): Promise<RunningNode> {
  const places = nodePlaces(opts);
  const { dataDir, workDir, runsDir } = places;
  const identity = taskIdentity(opts.taskUser || undefined);
  const nodeId = stableNodeId(dataDir);
  const log = opts.log ?? consoleLog;
  const python = opts.python || nodeVariable('CRAWLDECK_PYTHON') || defaultPython();
  const master = new MasterHttp(parseMasterUrls(opts.master), opts.key, nodeId);
  const keys = new NodeKeys(dataDir, opts.key, master);
  const sandbox = nodeJail(nodeId, { dataDir, workDir }, opts.limits, log);
  const name = opts.name || os.hostname();
  const runEnv: RunnerEnv = {
    nodeId,
    nodeName: name,
    python,
    ...(await stageTaskRuntime(workDir)),
    graceMs: opts.graceMs ?? 5000,
    runsDir,
    identity,
    jail: sandbox.jail,
  };
  const envJobs = new EnvJobRunner({ workDir, python }, { post: (route, body) => master.postJson(route, body), log });
  const limits: NodeLimits = { enabled: true, maxRunners: opts.maxRunners ?? 8 };
  const me = {
    nodeId,
    name,
    nodeType: opts.type ?? 'worker',
    info: systemInfo(python, sandbox.info),
  };
  const session = new MasterSession(
    me,
    master,
    limits,
    new MetricsSampler(dataDir),
    envJobs,
    log,
    keys,
    opts.onKeyRefused,
  );
  const tasks = new Assignments(places, runEnv, limits, master, envJobs, (m) => session.send(m), log);
  session.tasks = tasks;
  tasks.resume();
  envJobs.start();
  session.connect();
  return {
    nodeId,
    async stop() {
      envJobs.stop();
      session.stop();
      tasks.killAll();
      removeWorkDir(workDir, runsDir, identity);
    },
  };
}

/** The work dir holds nothing to keep: the task folders (removed as the task user) and the staged runtime. */
function removeWorkDir(workDir: string, runsDir: string, identity: RunnerEnv['identity']): void {
  clearRuns(runsDir, identity);
  rmSync(path.join(workDir, 'runtime'), { recursive: true, force: true });
  for (const dir of [runsDir, workDir]) {
    try {
      rmdirSync(dir);
    } catch {
      /* a leftover process refilled it */
    }
  }
}

/**
 * The node service: joins a master over one WebSocket (control) + HTTP (bulk), syncs spider files by hash,
 * runs tasks as process groups, spools their output and items to disk and ships them with acknowledged offsets.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import {
  NODE_ID_HEADER,
  NODE_KEY_HEADER,
  PROTOCOL_VERSION,
  parseMessage,
  type MasterToNode,
  type NodeToMaster,
  type NodeType,
  type ShipAck,
  type ShipBatch,
  type TaskAssignment,
} from '@crawldeck/shared';
import { MetricsSampler, defaultPython, systemInfo } from './system.ts';
import { syncWorkspace } from './sync.ts';
import { TaskRun, clearRuns, type SavedRun } from './runner.ts';
import { diskFaultMessage, probeSpool } from './spool.ts';
import { passThroughDir, privateDir, taskIdentity } from './sandbox.ts';
import { stageTaskRuntime } from './task-runtime.ts';
import { loadNodeEnv, nodeVariable } from './config.ts';
import { EnvJobRunner } from './environments/jobs.ts';
import { taskEnvironment, type TaskEnvironment } from './environments/spider-env.ts';

export { resolveCommand } from './runner.ts';
export { MAX_LINE_BYTES } from './spool.ts';

type Level = 'info' | 'warn' | 'error' | 'debug';

export interface NodeOptions {
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
  log?: (level: Level, msg: string, extra?: Record<string, unknown>) => void;
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

/** NODE_PATH entry holding `crawldeck` → our Node SDK, so spiders can `require('crawldeck')`. */
/** One work folder per node data dir, in the system temp dir (outside the data dir, reachable by the task user). */
function defaultWorkDir(dataDir: string): string {
  return path.join(os.tmpdir(), `crawldeck-work-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
}

class HttpGone extends Error {
  gone = true;
}

export async function startNode(opts: NodeOptions): Promise<RunningNode> {
  // The data dir (node id, spools, the synced spider files) is the node's alone; tasks run elsewhere as the task user.
  const dataDir = privateDir(path.resolve(opts.dataDir));
  const workDir = passThroughDir(
    path.resolve(opts.workDir || nodeVariable('CRAWLDECK_NODE_WORK_DIR') || defaultWorkDir(dataDir)),
  );
  const runsDir = passThroughDir(path.join(workDir, 'runs'));
  const identity = taskIdentity(opts.taskUser || undefined);
  const tasksDir = path.join(dataDir, 'tasks');
  const wsDir = path.join(dataDir, 'workspaces');
  // The spools of an earlier run of this node are kept: its tasks are taken over below (resumeRuns).
  mkdirSync(tasksDir, { recursive: true });
  mkdirSync(wsDir, { recursive: true });
  const nodeId = stableNodeId(dataDir);
  const log =
    opts.log ??
    ((level: Level, msg: string, extra?: Record<string, unknown>) =>
      console.error(`[node ${level}] ${msg}${extra ? ' ' + JSON.stringify(extra) : ''}`));
  const python = opts.python || nodeVariable('CRAWLDECK_PYTHON') || defaultPython();
  const info = systemInfo(python);
  const sampler = new MetricsSampler(dataDir);
  const base = opts.master.replace(/\/+$/, '');
  const headers = { [NODE_KEY_HEADER]: opts.key, [NODE_ID_HEADER]: nodeId };
  const runEnv = {
    nodeId,
    python,
    ...(await stageTaskRuntime(workDir)),
    graceMs: opts.graceMs ?? 5000,
    runsDir,
    identity,
  };
  const envJobs = new EnvJobRunner({ workDir, python }, { post: postJson, log });
  let maxRunners = opts.maxRunners ?? 8;
  let enabled = true;
  const runs = new Map<string, TaskRun>();
  const spiderLocks = new Map<string, Promise<unknown>>();
  let ws: WebSocket | undefined;
  let registered = false;
  let stopped = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let attempts = 0;

  const send = (msg: NodeToMaster): boolean => {
    if (!ws || ws.readyState !== WebSocket.OPEN || (!registered && msg.type !== 'register')) return false;
    ws.send(JSON.stringify(msg));
    return true;
  };

  async function post(kind: 'logs' | 'items', taskId: string, batch: ShipBatch): Promise<ShipAck> {
    const res = await fetch(`${base}/api/node-api/tasks/${taskId}/${kind}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    if (res.status === 410 || res.status === 404) throw new HttpGone(`task ${taskId} is gone`);
    if (!res.ok) throw new Error(`shipping ${kind} failed: ${res.status}`);
    const body = (await res.json()) as { data: ShipAck };
    return body.data;
  }

  async function postJson<T>(route: string, body: unknown): Promise<T> {
    const res = await fetch(`${base}${route}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }

  async function fetchBlob(hash: string): Promise<Buffer> {
    const res = await fetch(`${base}/api/node-api/blobs/${hash}`, { headers });
    if (!res.ok) throw new Error(`blob ${hash}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }

  function sendFinished(run: TaskRun): void {
    send({
      type: 'task.finished',
      taskId: run.taskId,
      status: run.status,
      exitCode: run.exitCode,
      error: run.error,
      ...run.shipped,
      finishTs: run.finishTs,
    });
  }

  async function deployAndRun(run: TaskRun, t: TaskAssignment): Promise<void> {
    const startTs = Date.now();
    const root = path.join(wsDir, t.spiderId);
    const prev = spiderLocks.get(t.spiderId) ?? Promise.resolve();
    // The task's own copy is taken under the same lock, so the next task's sync cannot change files mid-copy.
    const sync = prev
      .catch(() => undefined)
      .then(async () => {
        const r = await syncWorkspace(root, path.join(wsDir, `${t.spiderId}.manifest.json`), t.files, fetchBlob);
        await run.prepare(root);
        return r;
      });
    spiderLocks.set(t.spiderId, sync);
    try {
      const r = await sync;
      send({
        type: 'task.deployed',
        taskId: t.taskId,
        spiderId: t.spiderId,
        ...r,
        startTs,
        finishTs: Date.now(),
        error: '',
      });
    } catch (err) {
      const message = `deploy failed: ${(err as Error).message}`;
      send({
        type: 'task.deployed',
        taskId: t.taskId,
        spiderId: t.spiderId,
        filesTotal: t.files.length,
        filesChanged: 0,
        bytes: 0,
        startTs,
        finishTs: Date.now(),
        error: message,
      });
      run.fail(message);
      return;
    }
    let environment: TaskEnvironment;
    try {
      const build = {
        places: { workDir, python },
        identity,
        settings: envJobs.settings,
        note: (l: string) => run.note(l),
      };
      environment = await taskEnvironment(run.workspace, t.spiderId, build);
    } catch (err) {
      run.fail((err as Error).message);
      return;
    }
    if (run.cancelled) {
      run.fail('cancelled before start', 'cancelled');
      return;
    }
    run.start(t, environment);
  }

  function onAssign(task: TaskAssignment): void {
    if (runs.has(task.taskId)) return;
    const active = [...runs.values()].filter((r) => r.state !== 'done').length;
    if (!enabled || active >= maxRunners) {
      send({
        type: 'task.rejected',
        taskId: task.taskId,
        reason: enabled ? 'node is at its max runners' : 'node is disabled',
      });
      return;
    }
    let run: TaskRun;
    try {
      run = makeRun(task.taskId);
    } catch (err) {
      // No spool for it (its disk is full or read-only): the task fails at once; the node stays up.
      const error =
        diskFaultMessage(err) ??
        probeSpool(tasksDir) ??
        `the node could not create the task's spool: ${(err as Error).message}`;
      log('error', 'task spool not created', { taskId: task.taskId, error });
      try {
        rmSync(path.join(tasksDir, task.taskId), { recursive: true, force: true });
      } catch {
        /* read-only: removed at the next start */
      }
      send({
        type: 'task.finished',
        taskId: task.taskId,
        status: 'error',
        exitCode: null,
        error,
        logLines: 0,
        items: 0,
        finishTs: Date.now(),
      });
      return;
    }
    send({ type: 'task.accepted', taskId: task.taskId });
    deployAndRun(run, task).catch((err: unknown) =>
      log('error', 'task failed to start', { taskId: task.taskId, err: String(err) }),
    );
  }

  /** A task of this node, new or (with `saved`) taken over from the spool of an earlier run of the node. */
  function makeRun(taskId: string, saved?: SavedRun): TaskRun {
    const run: TaskRun = new TaskRun(
      taskId,
      tasksDir,
      runEnv,
      {
        post,
        started: (pid, cmd, startTs) => send({ type: 'task.started', taskId, pid, cmd, startTs }),
        done: () => sendFinished(run),
        gone: () => {
          runs.delete(taskId);
          run.dispose();
        },
      },
      saved,
    );
    runs.set(taskId, run);
    return run;
  }

  /**
   * Takes over the tasks an earlier run of this node left in its spool (docs/tasks.md "Node restarts"): processes
   * still alive are watched until they end, everything spooled is shipped from the acknowledged offsets, and the
   * master, told of them on registering, decides (cancelled or deleted meanwhile: stopped). Tasks that never
   * started are forgotten (the master queues them again); the work folders of forgotten tasks are removed.
   */
  function resumeRuns(): void {
    for (const taskId of readdirSync(tasksDir)) {
      const saved = TaskRun.load(tasksDir, taskId);
      const run = saved && makeRun(taskId, saved);
      if (run?.resume()) {
        log('info', 'task taken over from the spool', { taskId, state: saved!.state, pid: saved!.pid });
        continue;
      }
      runs.delete(taskId);
      try {
        rmSync(path.join(tasksDir, taskId), { recursive: true, force: true });
      } catch {
        /* read-only: tried again at the next start */
      }
    }
    clearRuns(runsDir, identity, new Set(runs.keys()));
  }

  function handle(msg: MasterToNode): void {
    switch (msg.type) {
      case 'registered': {
        registered = true;
        attempts = 0;
        enabled = msg.enabled;
        maxRunners = msg.maxRunners;
        if (heartbeat) clearInterval(heartbeat);
        const beat = () => {
          const running = [...runs.values()].filter((r) => r.state !== 'done');
          send({ type: 'heartbeat', metrics: sampler.sample(running.length), running: running.map((r) => r.taskId) });
        };
        beat();
        heartbeat = setInterval(beat, msg.heartbeatMs);
        heartbeat.unref();
        // Final reports that the master did not acknowledge before the connection broke.
        for (const run of runs.values()) if (run.drained) sendFinished(run);
        log('info', 'registered with master', { nodeId, master: base });
        envJobs.wake();
        return;
      }
      case 'config':
        enabled = msg.enabled;
        maxRunners = msg.maxRunners;
        return;
      case 'task.assign':
        onAssign(msg.task);
        return;
      case 'task.cancel': {
        const run = runs.get(msg.taskId);
        if (run) {
          run.cancelled = true;
          run.cancel();
        }
        return;
      }
      case 'task.finished.ack':
      case 'task.drop': {
        const run = runs.get(msg.taskId);
        if (!run) return;
        if (msg.type === 'task.drop') run.kill('SIGKILL');
        runs.delete(msg.taskId);
        run.dispose();
        return;
      }
      case 'error':
        log('warn', `master says: ${msg.message}`);
        return;
      case 'env.wake':
        envJobs.wake();
        return;
      default: {
        const never: never = msg;
        void never;
      }
    }
  }

  function connect(): void {
    if (stopped) return;
    const url = base.replace(/^http/, 'ws') + '/api/nodes/connect';
    const socket = new WebSocket(url, { headers });
    ws = socket;
    registered = false;
    socket.on('open', () => {
      const tasks = [...runs.values()].map((r) => ({
        taskId: r.taskId,
        state: r.state === 'done' ? ('done' as const) : ('running' as const),
        pid: r.pid,
      }));
      send({
        type: 'register',
        protocol: PROTOCOL_VERSION,
        nodeId,
        name: opts.name || os.hostname(),
        nodeType: opts.type ?? 'worker',
        maxRunners,
        systemInfo: info,
        tasks,
      });
    });
    socket.on('message', (data) => {
      const msg = parseMessage<MasterToNode>(data.toString());
      try {
        if (msg) handle(msg);
      } catch (err) {
        log('error', 'master message failed', { type: msg?.type, err: String(err) });
      }
    });
    socket.on('close', (code, reason) => {
      if (ws === socket) {
        registered = false;
        if (heartbeat) clearInterval(heartbeat);
        heartbeat = undefined;
      }
      if (stopped) return;
      if (code === 4401) log('error', `master refused the node key: ${reason.toString()}`);
      // Reconnect with capped exponential backoff and jitter; shipping continues independently over HTTP.
      const delay = Math.min(4000, 250 * 2 ** Math.min(attempts++, 5)) * (0.75 + Math.random() * 0.5);
      reconnectTimer = setTimeout(connect, delay);
    });
    socket.on('error', (err) => log('debug', 'connection error', { err: err.message }));
  }

  resumeRuns();
  envJobs.start();
  connect();
  return {
    nodeId,
    async stop() {
      stopped = true;
      envJobs.stop();
      if (heartbeat) clearInterval(heartbeat);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      for (const run of runs.values()) {
        run.kill('SIGKILL');
        run.dispose();
      }
      runs.clear();
      ws?.close();
      // The work dir holds nothing to keep: the task folders (removed as the task user) and the staged runtime.
      clearRuns(runsDir, identity);
      rmSync(path.join(workDir, 'runtime'), { recursive: true, force: true });
      for (const dir of [runsDir, workDir]) {
        try {
          rmdirSync(dir);
        } catch {
          /* a leftover process refilled it */
        }
      }
    },
  };
}

const NODE_USAGE =
  'usage: crawldeck node --master URL [--key-file FILE] [--data-dir DIR] [--name NAME] [--max-runners N] [--python PATH] [--task-user USER] [--work-dir DIR]\n' +
  '  the node key comes from --key-file FILE, CRAWLDECK_NODE_KEY_FILE or CRAWLDECK_NODE_KEY, never the command line';

/** The node key from a file (first line) or the environment: a key on the command line shows in `ps`. */
function readNodeKey(file: string | undefined, fromEnv: string | undefined): string | undefined {
  if (file) return readFileSync(file, 'utf8').split('\n')[0].trim() || undefined;
  return fromEnv;
}

/** `crawldeck node --master URL [--key-file FILE] [--data-dir DIR] [--name NAME] [--max-runners N] [--python PATH] [--task-user USER] [--work-dir DIR]` */
export async function runNodeCli(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      master: { type: 'string' },
      key: { type: 'string' },
      'key-file': { type: 'string' },
      'data-dir': { type: 'string' },
      name: { type: 'string' },
      'max-runners': { type: 'string' },
      python: { type: 'string' },
      'grace-seconds': { type: 'string' },
      'task-user': { type: 'string' },
      'work-dir': { type: 'string' },
    },
  });
  process.title = 'crawldeck-node';
  // Every local user (task processes too) reads a command line in /proc/PID/cmdline: a key there is refused.
  if (values.key !== undefined)
    throw new Error(
      '--key is not accepted: put the key in a file (--key-file) or in CRAWLDECK_NODE_KEY\n' + NODE_USAGE,
    );
  const env = loadNodeEnv();
  const master = values.master ?? env.masterUrl;
  const key = readNodeKey(values['key-file'] ?? env.keyFile, env.nodeKey);
  if (!master || !key) throw new Error(NODE_USAGE);
  const maxRunners = Number(values['max-runners'] ?? env.maxRunners);
  if (!Number.isInteger(maxRunners) || maxRunners < 1) throw new Error('--max-runners must be a positive integer');
  const node = await startNode({
    master,
    key,
    dataDir: values['data-dir'] ?? env.dataDir,
    name: values.name,
    maxRunners,
    python: values.python,
    graceMs: values['grace-seconds'] ? Number(values['grace-seconds']) * 1000 : undefined,
    taskUser: values['task-user'],
    workDir: values['work-dir'],
  });
  console.error(`crawldeck node ${node.nodeId} joining ${master}`);
  const stop = () => {
    void node.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

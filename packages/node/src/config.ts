import os from 'node:os';
import path from 'node:path';
import type { VariableDefinition } from '@crawldeck/shared/config-table.ts';
import { renderVariableTable } from '@crawldeck/shared/config-table.ts';

/**
 * Every environment variable the node service (`crawldeck node`) reads, each also a command-line flag that wins
 * over it. The README's node table is rendered from this list (a unit test fails when the two differ).
 */
export const NODE_VARIABLES = {
  CRAWLDECK_MASTER_URL: {
    default: '_(required)_',
    description:
      'URL of the master to join (`--master`); several masters sharing one PostgreSQL store, comma-separated: when the one the node holds is gone, it joins the next',
  },
  CRAWLDECK_NODE_KEY_FILE: {
    default: '_(none)_',
    description:
      "file holding the master's node key (`--key-file`); the installer writes one readable only by its owner",
  },
  CRAWLDECK_NODE_KEY: {
    default: '_(none)_',
    description:
      "the master's node key itself, when no key file is given (never on the command line, where `ps` would show it)",
  },
  CRAWLDECK_NODE_HOME: {
    default: '_(the launcher sets it)_',
    description:
      "the folder an installed node lives in: the installer installs there (default `./crawldeck-node`) and the node's launcher sets it to its own folder",
  },
  CRAWLDECK_NODE_DATA_DIR: {
    default: '`$CRAWLDECK_NODE_HOME/data`, else `~/.crawldeck/node-data`',
    description:
      "the node's id, spools and synced spider files (`--data-dir`); always made absolute, so the node is the same one wherever it starts from",
  },
  CRAWLDECK_MAX_RUNNERS: { default: '`8`', description: 'tasks run at the same time (`--max-runners`)' },
  CRAWLDECK_PYTHON: {
    default: '`/usr/bin/python3` when it has Scrapy, else `python3`',
    description: 'interpreter of Python and Scrapy spiders (`--python`)',
  },
  CRAWLDECK_TASK_USER: {
    default: '`crawldeck-task`',
    description: 'when the node runs as root: the unprivileged user task processes run as (`--task-user`)',
  },
  CRAWLDECK_NODE_WORK_DIR: {
    default: '`<temp dir>/crawldeck-work-<hash>`',
    description: 'where task processes run, outside the data dir (`--work-dir`)',
  },
  CRAWLDECK_SANDBOX: {
    default: '`on`',
    description:
      "each task in a bubblewrap sandbox of its own (own PID, IPC and mount namespaces, private /tmp, read-only system); `off` runs tasks without one, and the master then keeps normal users' tasks away from the node unless an administrator allows it",
  },
  CRAWLDECK_TASK_UID_BASE: {
    default: '`1900000000`',
    description: 'when the node runs as root: first uid of the pool that gives every running task a uid of its own',
  },
  CRAWLDECK_TASK_UID_DIR: {
    default: '`/run/crawldeck/task-uids`',
    description: 'root-only folder where the nodes of a host claim task uids (one file per uid in use)',
  },
  CRAWLDECK_TASK_MEMORY_MB: {
    default: '`0`',
    description: "a task's memory limit (MiB) when the master sets none; 0: no limit",
  },
  CRAWLDECK_TASK_CPU_PERCENT: {
    default: '`0`',
    description: "a task's CPU limit (percent of one core) when the master sets none; 0: no limit",
  },
  CRAWLDECK_TASK_MAX_PROCESSES: {
    default: '`0`',
    description: "a task's limit of processes at once when the master sets none; 0: no limit",
  },
} as const satisfies Record<string, VariableDefinition>;

export type NodeVariable = keyof typeof NODE_VARIABLES;

export const nodeVariableTable = (): string => renderVariableTable(NODE_VARIABLES);

/** What the node service reads from its environment; empty strings and unset variables are both `undefined`. */
export interface NodeEnvConfig {
  masterUrl?: string;
  nodeKey?: string;
  dataDir: string;
  maxRunners: number;
  python?: string;
  taskUser?: string;
  workDir?: string;
  keyFile?: string;
}

/** One of the node's variables; empty and unset are both `undefined`. */
export function nodeVariable(name: NodeVariable, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[name] === '' ? undefined : env[name];
}

/**
 * Where a node keeps its id and spools when nothing says: an installed node in its own folder (so reinstalling
 * keeps it, and two installs are two nodes), a node started through `crawldeck node` in the user's home folder.
 * Never relative to the current folder: started from elsewhere, the node would otherwise join as a new one.
 */
export function defaultDataDir(nodeHome: string | undefined): string {
  return nodeHome ? path.join(path.resolve(nodeHome), 'data') : path.join(os.homedir(), '.crawldeck', 'node-data');
}

/** Reads the node's variables (only the names defined above); flags are applied over this by the caller. */
export function loadNodeEnv(env: NodeJS.ProcessEnv = process.env): NodeEnvConfig {
  const read = (name: NodeVariable) => nodeVariable(name, env);
  const maxRunners = Number(read('CRAWLDECK_MAX_RUNNERS') ?? 8);
  if (!Number.isInteger(maxRunners) || maxRunners < 1)
    throw new Error('CRAWLDECK_MAX_RUNNERS must be a positive integer');
  return {
    masterUrl: read('CRAWLDECK_MASTER_URL'),
    nodeKey: read('CRAWLDECK_NODE_KEY'),
    dataDir: path.resolve(read('CRAWLDECK_NODE_DATA_DIR') ?? defaultDataDir(read('CRAWLDECK_NODE_HOME'))),
    maxRunners,
    python: read('CRAWLDECK_PYTHON'),
    taskUser: read('CRAWLDECK_TASK_USER'),
    workDir: read('CRAWLDECK_NODE_WORK_DIR'),
    keyFile: read('CRAWLDECK_NODE_KEY_FILE'),
  };
}

/**
 * What untrusted processes inherit of this process's own environment: the search path, the language and the
 * time zone, none of them secret. Empty and unset are both `undefined`.
 */
export interface HostEnvironment {
  path?: string;
  lang?: string;
  tz?: string;
}

export function hostEnvironment(env: NodeJS.ProcessEnv = process.env): HostEnvironment {
  return { path: env.PATH || undefined, lang: env.LANG || undefined, tz: env.TZ || undefined };
}

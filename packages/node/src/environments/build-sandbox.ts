/**
 * The sandbox of a per-spider environment build. pip and npm run the spider author's code (setup.py, install
 * scripts), so a build is confined like a task: the task's own uid, its own PID, IPC, UTS and mount namespaces, a
 * private /tmp, the host read-only, the node's work and data folders hidden, and control groups with the task's
 * limits. The only folders it may write are the environment being built (`env/`) and the build's home; it reads the
 * tool credentials beside them and the task's workspace (for requirements.txt and the files it names). Everything the
 * node writes afterwards (the ready marker) lives in the node's own folder, which the build sees read-only.
 */
import type { ChildProcess } from 'node:child_process';
import type { TaskLimits } from '@crawldeck/shared';
import type { TaskIdentity } from '../sandbox.ts';
import type { NodeJail } from '../run-process.ts';
import { TaskCgroup } from '../tenancy/cgroups.ts';
import { killReason, taskLimits } from '../tenancy/confine.ts';
import { spawnJailed } from '../tenancy/jail.ts';

/** What a build needs of its task to be confined like it. */
export interface BuildConfinement {
  jail: NodeJail;
  taskId: string;
  /** The limits the task's assignment sets (the node's defaults fill the rest). */
  limits: TaskLimits | undefined;
}

/** The folders of one build: what it may write and what it may only read. */
export interface BuildFolders {
  /** The node's folder of this environment: read-only inside (the credential files are in it). */
  envRoot: string;
  /** The environment itself and the build's home. */
  writable: string[];
  /** Other folders the build reads (the task's workspace). */
  readable: string[];
}

/** A build's sandbox: starts each tool of the build in it and tells afterwards whether a limit stopped it. */
export interface BuildSandbox {
  launch(argv: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess;
  /** Why the kernel stopped the build (out of memory, process limit), in the words a task's end shows. */
  limitReason(): string | undefined;
  /** Stops what is left of the build and removes its control groups. */
  dispose(): void;
}

/** Sets up the sandbox of one build, or undefined when the node runs tasks without one. */
export function buildSandbox(
  c: BuildConfinement | undefined,
  identity: TaskIdentity | undefined,
  folders: BuildFolders,
): BuildSandbox | undefined {
  if (!c) return undefined;
  const { jail } = c;
  const limits = taskLimits(jail.defaults, c.limits);
  // A group of its own (the task's is made when its process starts), named so it is never taken for a task's.
  const cgroup = jail.cgroups && identity ? new TaskCgroup(jail.cgroups, `build-${c.taskId}`, limits) : undefined;
  try {
    cgroup?.create();
  } catch (err) {
    cgroup?.remove();
    throw err;
  }
  return {
    launch: (argv, env, cwd) =>
      spawnJailed(
        argv,
        {
          identity,
          cgroupProcs: cgroup?.procsFiles() ?? [],
          hidden: jail.hidden,
          readable: [...jail.readable, folders.envRoot, ...folders.readable],
          writable: folders.writable,
          cwd,
          env,
        },
        ['ignore', 'pipe', 'pipe'],
        jail.bwrap,
      ),
    limitReason: () => (cgroup ? killReason(cgroup.verdict(), limits) : undefined),
    dispose: () => cgroup?.remove(),
  };
}

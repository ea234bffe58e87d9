/**
 * Resource limits of one task through control groups: memory, CPU share and number of processes, on hosts with the
 * split hierarchy (cgroup v1, one mount per controller) and the unified one (v2). Each task gets a group named after
 * it under `crawldeck/`; its first process is placed in it before it starts anything of the spider's, so nothing of
 * the task escapes the limits. After the task the group tells why it ended: the kernel's out-of-memory killer, or a
 * fork refused at the process limit.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TaskLimits } from '@crawldeck/shared';

const ROOT = '/sys/fs/cgroup';
const GROUP = 'crawldeck';

export type CgroupVersion = 1 | 2;

/** Which hierarchy this host has, when we may make groups in it (root); undefined otherwise. */
export function cgroupVersion(root = ROOT): CgroupVersion | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (existsSync(path.join(root, 'cgroup.controllers'))) return 2;
  if (['memory', 'pids', 'cpu'].every((c) => existsSync(path.join(root, c, 'cgroup.procs')))) return 1;
  return undefined;
}

const write = (file: string, value: string) => writeFileSync(file, value);
const readOr = (file: string, fallback = ''): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
};
const counter = (text: string, key: string): number => Number(new RegExp(`^${key} (\\d+)`, 'm').exec(text)?.[1] ?? 0);

/** What a task's group tells after the task. */
export interface LimitVerdict {
  outOfMemory: boolean;
  processLimit: boolean;
}

/** The control groups of one task. */
export class TaskCgroup {
  /** One folder per controller (v1), or the single one (v2). */
  readonly dirs: string[];

  constructor(
    readonly version: CgroupVersion,
    readonly taskId: string,
    readonly limits: Required<TaskLimits>,
    private root = ROOT,
  ) {
    this.dirs =
      version === 2
        ? [path.join(root, GROUP, taskId)]
        : ['memory', 'pids', 'cpu'].map((c) => path.join(root, c, GROUP, taskId));
  }

  private dir(controller: 'memory' | 'pids' | 'cpu'): string {
    return this.version === 2 ? this.dirs[0] : path.join(this.root, controller, GROUP, this.taskId);
  }

  /** Makes the groups and sets their limits (0 leaves a limit off). */
  create(): void {
    if (this.version === 2) {
      const parent = path.join(this.root, GROUP);
      mkdirSync(parent, { recursive: true });
      // The controllers must be handed down from the root to our group and from it to the tasks' groups.
      for (const dir of [this.root, parent]) {
        try {
          write(path.join(dir, 'cgroup.subtree_control'), '+memory +pids +cpu');
        } catch {
          /* already on, or not available: the limits below that need it fail loudly */
        }
      }
    }
    for (const dir of this.dirs) mkdirSync(dir, { recursive: true });
    const { memoryMb, maxProcesses, cpuPercent } = this.limits;
    const mem = this.dir('memory');
    if (memoryMb > 0) {
      const bytes = String(memoryMb * 1024 * 1024);
      if (this.version === 2) {
        write(path.join(mem, 'memory.max'), bytes);
        if (existsSync(path.join(mem, 'memory.swap.max'))) write(path.join(mem, 'memory.swap.max'), '0');
      } else {
        write(path.join(mem, 'memory.limit_in_bytes'), bytes);
        // With swap accounting, memory + swap is held to the same size: a hog ends instead of swapping the host.
        if (existsSync(path.join(mem, 'memory.memsw.limit_in_bytes')))
          write(path.join(mem, 'memory.memsw.limit_in_bytes'), bytes);
      }
    }
    if (maxProcesses > 0) write(path.join(this.dir('pids'), 'pids.max'), String(maxProcesses));
    if (cpuPercent > 0) {
      const period = 100_000;
      const quota = String(Math.round((period * cpuPercent) / 100));
      const cpu = this.dir('cpu');
      if (this.version === 2) write(path.join(cpu, 'cpu.max'), `${quota} ${period}`);
      else {
        write(path.join(cpu, 'cpu.cfs_period_us'), String(period));
        write(path.join(cpu, 'cpu.cfs_quota_us'), quota);
      }
    }
  }

  /** The files a process writes its pid into to join the task's groups. */
  procsFiles(): string[] {
    return this.dirs.map((d) => path.join(d, 'cgroup.procs'));
  }

  /** Whether the groups exist (a task taken over after a restart of the node keeps them). */
  exists(): boolean {
    return this.dirs.every((d) => existsSync(d));
  }

  /** The processes in the task's groups (also those that left its process group). */
  pids(): number[] {
    const text = readOr(path.join(this.dir('pids'), 'cgroup.procs'));
    return text
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((n) => n > 0);
  }

  /** Sends a signal to every process of the task, wherever it moved its process group or session. */
  signalAll(signal: NodeJS.Signals): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, signal);
      } catch {
        /* gone */
      }
    }
  }

  /** Why the task's processes were stopped by the kernel, if they were. */
  verdict(): LimitVerdict {
    const mem = this.dir('memory');
    const outOfMemory =
      this.version === 2
        ? counter(readOr(path.join(mem, 'memory.events')), 'oom_kill') > 0
        : counter(readOr(path.join(mem, 'memory.oom_control')), 'oom_kill') > 0;
    const processLimit = counter(readOr(path.join(this.dir('pids'), 'pids.events')), 'max') > 0;
    return { outOfMemory, processLimit };
  }

  /** Removes the groups once no process is left in them. */
  remove(): void {
    this.signalAll('SIGKILL');
    for (const dir of this.dirs) {
      try {
        rmdirSync(dir);
      } catch {
        /* a process still leaving: removed at the node's next start */
      }
    }
  }
}

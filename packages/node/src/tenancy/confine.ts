/**
 * The pieces of a task's confinement that the runner puts together: its limits (the assignment's over the node's
 * defaults), the environment folders it may read inside its sandbox, and why the kernel ended it.
 */
import { END_REASON_PREFIX } from '@crawldeck/shared';
import path from 'node:path';
import type { TaskLimits } from '@crawldeck/shared';
import type { NodeJail } from '../run-process.ts';
import type { TaskEnvironment } from '../environments/spider-env.ts';
import type { LimitVerdict } from './cgroups.ts';

/** The limits of one task: each one set by its assignment (a positive number), else the node's default. */
export function taskLimits(defaults: Required<TaskLimits>, own: TaskLimits | undefined): Required<TaskLimits> {
  const pick = (v: number | undefined, d: number) => (v !== undefined && v > 0 ? v : d);
  return {
    memoryMb: pick(own?.memoryMb, defaults.memoryMb),
    cpuPercent: pick(own?.cpuPercent, defaults.cpuPercent),
    maxProcesses: pick(own?.maxProcesses, defaults.maxProcesses),
  };
}

/**
 * The folders of the environments a task runs in that the sandbox hides with the node's work folder: a spider's
 * own environment (`<work dir>/spider-envs/<name>`), found from the interpreter and search paths it was given.
 */
export function environmentDirs(te: TaskEnvironment, jail: Pick<NodeJail, 'hidden'>): string[] {
  const dirs = new Set<string>();
  for (const p of [te.python, ...te.path, ...te.nodePath]) {
    if (!p) continue;
    for (const hidden of jail.hidden) {
      const rel = path.relative(hidden, p);
      if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
      const [top, name] = rel.split(path.sep);
      if (top === 'spider-envs' && name) dirs.add(path.join(hidden, top, name));
    }
  }
  return [...dirs];
}

/** The kill reason a limit gives, in the words the task shows; undefined when no limit ended the task. */
export function killReason(
  verdict: LimitVerdict | undefined,
  limits: Required<TaskLimits> | undefined,
): string | undefined {
  if (!verdict || !limits) return undefined;
  if (verdict.outOfMemory) return `${END_REASON_PREFIX.outOfMemory}: the task used its limit of ${limits.memoryMb} MiB`;
  if (verdict.processLimit)
    return `${END_REASON_PREFIX.processLimit}: the task reached its limit of ${limits.maxProcesses} processes at once`;
  return undefined;
}

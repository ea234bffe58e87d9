/**
 * How a task on this node is stopped and how its end is told: its whole process tree (the process group, and every process in its control
 * groups, also one that left the group) gets TERM and, after the grace period, KILL — on a cancel, a spool fault,
 * the node going away, or the task's maximum run time running out.
 */
import { END_REASON_PREFIX, type FinalStatus } from '@crawldeck/shared';
import { killGroup } from './run-process.ts';
import type { TaskCgroup } from './tenancy/cgroups.ts';

/** The error text of a task stopped at its maximum run time (its end reason reads it). */
export const TIMED_OUT = `${END_REASON_PREFIX.timedOut}: ran longer than its maximum run time`;

/** How a task's main process came to end, as the final status needs it. */
export interface Ending {
  cancelled: boolean;
  timedOut: boolean;
  /** A spool fault that stopped the task ('' for none). */
  fault: string;
  exitedWithZero: boolean;
  /** Why the process failed, asked only when it did fail on its own. */
  failure: () => string;
}

/**
 * The final status and error of an ended task, in this order: cancelled by a user, stopped at its maximum run time,
 * stopped by a spool fault, finished, or failed (with why). A finished task keeps the error it has (undefined).
 */
export function endOf(e: Ending): { status: FinalStatus; error: string | undefined } {
  if (e.cancelled) return { status: 'cancelled', error: 'cancelled' };
  if (e.timedOut) return { status: 'error', error: TIMED_OUT };
  if (e.fault) return { status: 'error', error: e.fault };
  if (e.exitedWithZero) return { status: 'finished', error: undefined };
  return { status: 'error', error: e.failure() };
}

export interface StopTarget {
  /** The task's main process, once started. */
  pid(): number | null;
  /** The task's control groups, when the node has them. */
  cgroup(): TaskCgroup | undefined;
  /** Whether the task still runs (nothing is signalled otherwise). */
  running(): boolean;
}

export class RunStop {
  private killTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: StopTarget,
    private readonly graceMs: number,
  ) {}

  /** `signal` to the process group and every process in the task's control groups, at once. */
  signal(signal: NodeJS.Signals): void {
    killGroup(this.target.pid(), signal);
    this.target.cgroup()?.signalAll(signal);
  }

  /** `signal` to a running task; after a TERM, KILL follows once the grace period is over. */
  kill(signal: NodeJS.Signals): void {
    if (!this.target.running()) return;
    this.signal(signal);
    if (signal === 'SIGTERM' && !this.killTimer) {
      this.killTimer = setTimeout(() => this.signal('SIGKILL'), this.graceMs);
      this.killTimer.unref();
    }
  }

  /**
   * Calls `timeUp` at `deadline` (epoch ms; 0 is none), once. A task taken over after a restart of the node arms
   * the deadline it saved, so its maximum run time counts from its real start.
   */
  armDeadline(deadline: number, timeUp: () => void): void {
    if (!deadline || this.deadlineTimer) return;
    this.deadlineTimer = setTimeout(timeUp, Math.max(0, deadline - Date.now()));
    this.deadlineTimer.unref();
  }

  /** The task has ended: no KILL or deadline is pending any more. */
  clear(): void {
    if (this.killTimer) clearTimeout(this.killTimer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
  }
}

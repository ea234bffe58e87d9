/**
 * Why a task ended other than finished: one word the console shows beside the status (in the reader's language)
 * and API clients can branch on. The node writes the task's error text with the prefixes below, and the master
 * writes its own for a lost node; both sides take them from here, so the words and their reading cannot drift.
 */
import { Type, type Static } from '@sinclair/typebox';

export const END_REASON_PREFIX = {
  outOfMemory: 'out of memory',
  processLimit: 'process limit',
  signal: 'killed by',
  exitCode: 'exit code',
  nodeLost: 'node lost',
  timedOut: 'timed out',
} as const;

export const END_REASON_KINDS = [
  'out_of_memory',
  'process_limit',
  'cancelled',
  'signal',
  'exit_code',
  'node_lost',
  'timed_out',
  'command_not_found',
  'error',
] as const;
export type EndReasonKind = (typeof END_REASON_KINDS)[number];

export const TaskEndReason = Type.Object({
  kind: Type.Union(END_REASON_KINDS.map((k) => Type.Literal(k))),
  /** The signal number, for `signal`. */
  signal: Type.Optional(Type.Integer()),
  /** The exit code, for `exit_code`. */
  code: Type.Optional(Type.Integer()),
  /** For `command_not_found`: the program the command names and the node that does not have it. */
  program: Type.Optional(Type.String()),
  node: Type.Optional(Type.String()),
});
export type TaskEndReason = Static<typeof TaskEndReason>;

/**
 * The error of a task whose command names a program its node does not have (the shell's exit code 127): the node
 * writes it, the console shows it in the reader's language from the end reason.
 */
export function commandNotFound(program: string, node: string): string {
  return `\`${program}\`: command not found on node ${node}`;
}
const COMMAND_NOT_FOUND = /^`([^`]+)`: command not found on node (.+)$/;

/** The end reason of a task in this status with this error text and exit code; null while it runs or when it finished. */
export function taskEndReason(status: string, error: string, exitCode: number | null): TaskEndReason | null {
  if (status === 'cancelled') return { kind: 'cancelled' };
  if (status !== 'error' && status !== 'abnormal') return null;
  const e = error.trimStart().toLowerCase();
  if (e.startsWith(END_REASON_PREFIX.outOfMemory)) return { kind: 'out_of_memory' };
  if (e.startsWith(END_REASON_PREFIX.processLimit)) return { kind: 'process_limit' };
  if (status === 'error' && e.startsWith(END_REASON_PREFIX.timedOut)) return { kind: 'timed_out' };
  if (status === 'abnormal' || e.startsWith(END_REASON_PREFIX.nodeLost)) return { kind: 'node_lost' };
  if (exitCode !== null && exitCode > 128 && e.startsWith(END_REASON_PREFIX.signal))
    return { kind: 'signal', signal: exitCode - 128 };
  const missing = exitCode === 127 ? COMMAND_NOT_FOUND.exec(error.trim()) : null;
  if (missing) return { kind: 'command_not_found', program: missing[1], node: missing[2] };
  if (exitCode !== null && exitCode !== 0) return { kind: 'exit_code', code: exitCode };
  return { kind: 'error' };
}

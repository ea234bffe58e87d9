/**
 * A task whose command names a program the node does not have ends with the shell's exit code 127, and the shell's
 * own words mislead: `/bin/sh: 1: go: Permission denied` when a folder of the task's PATH is closed to it (as the
 * sandbox hides the node's own folders). The node reads the shell's last words from the end of the task's log and
 * names the program instead.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { commandNotFound } from '@crawldeck/shared';

/** How much of the end of the log is read: the shell's message is the last thing the task wrote. */
const TAIL_BYTES = 4096;

/** `/bin/sh: 1: go: not found` (dash), `sh: line 1: go: command not found` (bash), with the reasons dash gives. */
const SHELL_MISS =
  /^(?:\/\S*\/)?(?:sh|bash|dash): (?:line )?\d+: ([^:\s][^:]*): (?:command not found|not found|Permission denied|No such file or directory)$/;

function logTail(logFile: string): string {
  const fd = openSync(logFile, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The program the task's shell could not run, when its command ended with 127 for that reason: the last line the
 * shell wrote about it. Undefined otherwise (another exit code, or 127 from the program itself).
 */
export function missingProgram(logFile: string, exitCode: number | null): string | undefined {
  if (exitCode !== 127) return undefined;
  let lines: string[];
  try {
    lines = logTail(logFile)
      .split('\n')
      .map((l) => l.trimEnd())
      .filter(Boolean);
  } catch {
    return undefined;
  }
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - 5; i--) {
    const m = SHELL_MISS.exec(lines[i]);
    if (m) return m[1];
  }
  return undefined;
}

/** The task's error when its shell could not find the program of its command: "`go`: command not found on node X". */
export function missingProgramError(logFile: string, exitCode: number | null, node: string): string | undefined {
  const program = missingProgram(logFile, exitCode);
  return program && commandNotFound(program, node);
}

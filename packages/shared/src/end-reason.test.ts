import { describe, expect, it } from 'vitest';
import { taskEndReason } from './end-reason.ts';

describe('taskEndReason', () => {
  it('reads the node’s and the master’s words', () => {
    expect(taskEndReason('error', 'out of memory: the task used its limit of 64 MiB', 137)).toEqual({
      kind: 'out_of_memory',
    });
    expect(taskEndReason('error', 'process limit: the task reached its limit of 32 processes at once', 1)).toEqual({
      kind: 'process_limit',
    });
    expect(taskEndReason('error', 'killed by SIGKILL (signal 9)', 137)).toEqual({ kind: 'signal', signal: 9 });
    expect(taskEndReason('error', 'exit code 3', 3)).toEqual({ kind: 'exit_code', code: 3 });
    expect(taskEndReason('abnormal', 'node lost: it went offline', null)).toEqual({ kind: 'node_lost' });
    expect(taskEndReason('cancelled', '', 143)).toEqual({ kind: 'cancelled' });
    expect(taskEndReason('error', 'spider not found', null)).toEqual({ kind: 'error' });
    expect(taskEndReason('error', '`go`: command not found on node worker 1', 127)).toEqual({
      kind: 'command_not_found',
      program: 'go',
      node: 'worker 1',
    });
    // Only the shell's 127 means a missing program; the same words after another code are the program's own.
    expect(taskEndReason('error', '`go`: command not found on node w', 1)).toEqual({ kind: 'exit_code', code: 1 });
  });

  it('gives none while a task waits or runs, or when it finished', () => {
    for (const s of ['pending', 'running', 'finished']) expect(taskEndReason(s, '', 0)).toBeNull();
  });
});

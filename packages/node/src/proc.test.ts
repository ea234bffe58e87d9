import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { groupAlive, procStartTime, sameProcess } from './proc.ts';

describe('telling a process apart from a later one with the same pid', () => {
  it('knows a live process by pid and start time, and not once it has ended', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const pid = child.pid!;
    const start = procStartTime(pid)!;
    expect(start).toMatch(/:\d+$/);
    expect(sameProcess(pid, start)).toBe(true);
    expect(
      sameProcess(
        pid,
        start.replace(/\d+$/, (n) => String(Number(n) + 1)),
      ),
    ).toBe(false);
    expect(groupAlive(pid)).toBe(true);
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-pid, 'SIGKILL');
    await exited;
    expect(sameProcess(pid, start)).toBe(false);
    expect(groupAlive(pid)).toBe(false);
  });
});

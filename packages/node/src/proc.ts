/**
 * Telling whether a process we started is still the same process, also from a later run of the node (which is no
 * longer its parent and cannot wait() for it). Node.js has no pidfd API, so we read /proc: the start time of a
 * process (clock ticks since boot, field 22 of /proc/<pid>/stat, with the boot's id) tells it apart from a later one
 * given the same pid, also after the host restarted.
 */
import { readFileSync } from 'node:fs';

let bootId: string | undefined;
function currentBoot(): string {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = '';
    }
  }
  return bootId;
}

/** The start time of a live process, or undefined when there is none (or only its zombie) with that pid. */
export function procStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after the last ')' are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[19] === undefined ? undefined : `${currentBoot()}:${fields[19]}`;
}

/** Whether the process that had this pid and start time is still running. */
export function sameProcess(pid: number, startTime: string | null): boolean {
  const now = procStartTime(pid);
  return now !== undefined && startTime !== null && now === startTime;
}

/** Whether any process of the group `pgid` is left. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

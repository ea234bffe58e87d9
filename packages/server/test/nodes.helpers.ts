import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CLI = path.join(REPO, 'packages/cli/src/main.ts');

export interface ChildNode {
  proc: ChildProcess;
  dataDir: string;
  output: () => string;
}

/** Starts `crawldeck node` as a real child process. */
export function spawnNode(
  master: string,
  key: string,
  name: string,
  extra: string[] = [],
  dataDir?: string,
): ChildNode {
  const dir = dataDir ?? mkdtempSync(path.join(os.tmpdir(), `crawldeck-node-${name}-`));
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'node', '--master', master, '--data-dir', dir, '--name', name, ...extra],
    {
      cwd: REPO,
      // The key goes in the environment: the node refuses one on its command line (visible in ps).
      env: { ...process.env, CRAWLDECK_NODE_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  return { proc, dataDir: dir, output: () => out };
}

export function killGroup(pid: number | null | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

/** Whether a live (not zombie) process of the process group `pgid` is left: read from /proc. */
export function groupAlive(pgid: number): boolean {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name: state, ppid, pgrp, …
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

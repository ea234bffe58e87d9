import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/crawldeck.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  input?: string;
  cwd?: string;
  env?: Record<string, string>;
}

/** The real `crawldeck` executable as a child process, `home` its home folder and `home/cfg` its config folder. */
function spawnCli(home: string, args: string[], opts: CliOptions) {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? home,
    env: { PATH: process.env.PATH ?? '', HOME: home, CRAWLDECK_CONFIG_DIR: path.join(home, 'cfg'), ...opts.env },
  });
}

/**
 * Runs the real `crawldeck` executable as a separate process (the master lives in this one: never spawnSync), with
 * `home` as its home folder and `home/cfg` as its config folder.
 */
export function runCli(home: string, args: string[], opts: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(home, args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Runs `crawldeck` with its standard output read only up to the first line, then closed, as `| head -1` does: the
 * command's next write meets a closed pipe. Resolves with that first line and how the command ended.
 */
export function runCliFirstLine(home: string, args: string[], opts: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(home, args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const end = stdout.indexOf('\n');
      if (end < 0) return;
      stdout = stdout.slice(0, end + 1);
      child.stdout.removeAllListeners('data');
      child.stdout.destroy();
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Running untrusted code (spider tasks, Scrapy project introspection): an environment built from an allow-list,
 * a working folder outside any data dir and, when we are root, a dedicated unprivileged user (docs/spiders.md
 * "Isolation").
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, lchownSync, lstatSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { hostEnvironment, nodeVariable } from './config.ts';

/** The user that untrusted processes run as; undefined when we are not root (they run as we do). */
export interface TaskIdentity {
  user: string;
  uid: number;
  gid: number;
}

export const DEFAULT_TASK_USER = 'crawldeck-task';
const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;

function lookup(user: string): TaskIdentity | undefined {
  try {
    const uid = Number(
      execFileSync('id', ['-u', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
    );
    const gid = Number(
      execFileSync('id', ['-g', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
    );
    return Number.isInteger(uid) && Number.isInteger(gid) ? { user, uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

const identities = new Map<string, TaskIdentity>();

/**
 * The identity of untrusted processes: `CRAWLDECK_TASK_USER` (default `crawldeck-task`), created with `useradd`
 * (system user, own group, no home, no login shell) when it does not exist. Only when this process is root.
 */
export function taskIdentity(
  user = nodeVariable('CRAWLDECK_TASK_USER') || DEFAULT_TASK_USER,
): TaskIdentity | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const known = identities.get(user);
  if (known) return known;
  if (!USER_NAME.test(user)) throw new Error(`task user "${user}" is not a valid user name`);
  let id = lookup(user);
  if (!id) {
    // Several nodes in one process (or on one host) may race here: a failed useradd is fine if the user now exists.
    spawnSync(
      'useradd',
      [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        user,
      ],
      { stdio: 'ignore' },
    );
    id = lookup(user);
  }
  if (!id) throw new Error(`task user "${user}" does not exist and useradd could not create it`);
  if (id.uid === 0 || id.gid === 0) throw new Error(`task user "${user}" must not be root`);
  identities.set(user, id);
  return id;
}

/** spawn() options that run a process as the task user (no-op when not root). */
export function asTaskUser(id: TaskIdentity | undefined): { uid?: number; gid?: number } {
  return id ? { uid: id.uid, gid: id.gid } : {};
}

/**
 * The environment an untrusted process starts from: PATH, LANG and TZ of ours (none of them secret) and HOME.
 * Everything else a caller adds on purpose; nothing of this process's environment is passed through.
 */
export function baseEnv(home: string, pathPrefix?: string): NodeJS.ProcessEnv {
  const host = hostEnvironment();
  const sysPath = host.path || '/usr/local/bin:/usr/bin:/bin';
  const env: NodeJS.ProcessEnv = {
    PATH: pathPrefix ? `${pathPrefix}${path.delimiter}${sysPath}` : sysPath,
    HOME: home,
    LANG: host.lang || 'C.UTF-8',
  };
  if (host.tz) env.TZ = host.tz;
  return env;
}

/** A folder only this process's user can enter (0700), created when missing. */
export function privateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * A folder we own that others may only pass through (0711), refused when it is a symbolic link or someone
 * else's (it may live in a shared /tmp).
 */
export function passThroughDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o711 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.isSymbolicLink()) throw new Error(`${dir} is not a directory`);
  if (process.getuid && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  chmodSync(dir, 0o711);
  return dir;
}

/**
 * Gives a tree we created (and nobody else has entered yet) to the task user. Children first: a folder is handed
 * over only once everything in it is, so nothing can be swapped under us while we walk.
 */
export function giveTree(dir: string, id: TaskIdentity | undefined): void {
  if (!id) return;
  const visit = (p: string) => {
    const st = lstatSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p)) visit(path.join(p, name));
    lchownSync(p, id.uid, id.gid);
  };
  visit(dir);
}

/**
 * Removes a tree the task user could write to. As root it is removed by the task user itself (`rm -rf`), so a
 * symbolic link planted in it cannot make us delete anything outside.
 */
export function removeUserTree(dir: string, id: TaskIdentity | undefined): void {
  if (!id) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  spawnSync('rm', ['-rf', '--', dir], { uid: id.uid, gid: id.gid, stdio: 'ignore', timeout: 60_000 });
  try {
    // The task user cannot unlink an entry of a folder that is not theirs: empty now, so we remove it.
    rmdirSync(dir);
  } catch {
    /* gone already, or refilled by a leftover process: left alone */
  }
}

/** `removeUserTree` without blocking the event loop (the embedded node shares it with the master). */
export async function removeUserTreeAsync(dir: string, id: TaskIdentity | undefined): Promise<void> {
  if (!id) return rm(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => {
    const child = spawn('rm', ['-rf', '--', dir], { uid: id.uid, gid: id.gid, stdio: 'ignore' });
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
  await rmdir(dir).catch(() => undefined);
}

/**
 * Starting untrusted code in a sandbox of its own (bubblewrap): its own PID, IPC and UTS namespaces, so it sees
 * only its own processes; a private /tmp and /dev/shm; the host's folders read-only; the node's work and data
 * folders replaced by empty ones, with only the task's own folders (and the environments it runs in) mounted back;
 * a user database that knows its uid. When the node is root, the first process joins the task's control groups and
 * gives up root before the sandbox starts, so nothing of the task runs as root or outside its limits.
 *
 * The sandbox's options, the process environment included, go to bubblewrap through a pipe (`--args`): no variable
 * of the spider (its secrets) is ever on a command line, and none reaches a process that runs as root.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { TaskIdentity } from '../sandbox.ts';

/** The search path of the processes that start a sandbox: system folders only, never one a task could write. */
const SAFE_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';
const SETPRIV = '/usr/bin/setpriv';

/** Joins the control groups named before `--`, then becomes the rest of the command line. */
const ENTER = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

export interface JailPlan {
  /** The uid and gid the code runs as (when the node is root); undefined runs it as the node's own user. */
  identity: TaskIdentity | undefined;
  /** Files a process writes its pid into to join the task's control groups (root only). */
  cgroupProcs: string[];
  /** Folders replaced by an empty one (the node's work and data folders). */
  hidden: string[];
  /** Folders mounted back read-only (when they exist). */
  readable: string[];
  /** Folders mounted back writable: the task's own. */
  writable: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface JailSupport {
  ok: boolean;
  /** The bubblewrap program. */
  bwrap: string;
  /** Why tasks cannot be sandboxed on this node, in words for the Nodes screen. */
  reason: string;
}

let support: JailSupport | undefined;

/**
 * Whether this node can sandbox: bubblewrap installed and able to make namespaces (as an unprivileged uid when we
 * are root, as it will for tasks). Probed once.
 */
export function jailSupport(probeUid?: number): JailSupport {
  if (support) return support;
  const bwrap = ['/usr/bin/bwrap', '/usr/local/bin/bwrap'].find((p) => existsSync(p)) ?? '';
  if (!bwrap) return (support = { ok: false, bwrap, reason: 'bubblewrap (bwrap) is not installed' });
  const root = process.getuid?.() === 0;
  if (root && !existsSync(SETPRIV)) return (support = { ok: false, bwrap, reason: 'setpriv is not installed' });
  const r = spawnSync(bwrap, ['--ro-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--unshare-ipc', 'true'], {
    stdio: 'ignore',
    timeout: 10_000,
    ...(root && probeUid !== undefined ? { uid: probeUid, gid: probeUid } : {}),
  });
  support =
    r.status === 0
      ? { ok: true, bwrap, reason: '' }
      : { ok: false, bwrap, reason: 'bubblewrap cannot create namespaces here (user namespaces disabled?)' };
  return support;
}

let hostUsers: { passwd: string; group: string } | undefined;

/** The host's user database with an entry for the task's uid, so tools that look up their user find one. */
function userDatabase(id: TaskIdentity): { passwd: string; group: string } {
  hostUsers ??= {
    passwd: readFileSync('/etc/passwd', 'utf8').replace(/\n?$/, '\n'),
    group: readFileSync('/etc/group', 'utf8').replace(/\n?$/, '\n'),
  };
  return {
    passwd: `${hostUsers.passwd}${id.user}:x:${id.uid}:${id.gid}::/nonexistent:/usr/sbin/nologin\n`,
    group: `${hostUsers.group}${id.user}:x:${id.gid}:\n`,
  };
}

/** bubblewrap's options for a plan, NUL-separated as `--args` reads them. */
function jailArgs(plan: JailPlan): Buffer {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/dev/shm'];
  // A folder in /tmp is hidden with it already (an empty one in its place would only show where it is).
  for (const dir of plan.hidden) if (!dir.startsWith('/tmp/')) args.push('--tmpfs', dir);
  for (const dir of plan.readable) args.push('--ro-bind-try', dir, dir);
  for (const dir of plan.writable) args.push('--bind', dir, dir);
  if (plan.identity) args.push('--ro-bind-data', '4', '/etc/passwd', '--ro-bind-data', '5', '/etc/group');
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  args.push('--hostname', 'crawldeck-task', '--chdir', plan.cwd, '--clearenv');
  for (const [k, v] of Object.entries(plan.env)) if (v !== undefined && !k.includes('=')) args.push('--setenv', k, v);
  return Buffer.from(args.map((a) => `${a}\0`).join(''));
}

/** Standard input, output and error of a sandboxed process: a file descriptor of ours, a pipe, or nothing. */
export type JailStdio = [number | 'pipe' | 'ignore', number | 'pipe' | 'ignore', number | 'pipe' | 'ignore'];

/**
 * Starts `argv` in the sandbox, in a process group of its own (a signal to the group reaches every process of
 * the sandbox).
 */
export function spawnJailed(argv: string[], plan: JailPlan, stdio: JailStdio, bwrap: string): ChildProcess {
  const root = process.getuid?.() === 0;
  const inner = [bwrap, '--args', '3', '--', ...argv];
  const cmd =
    root && plan.identity
      ? [
          '/bin/sh',
          '-c',
          ENTER,
          'crawldeck-sandbox',
          ...plan.cgroupProcs,
          '--',
          SETPRIV,
          `--reuid=${plan.identity.uid}`,
          `--regid=${plan.identity.gid}`,
          '--clear-groups',
          '--',
          ...inner,
        ]
      : inner;
  const child: ChildProcess = spawn(cmd[0], cmd.slice(1), {
    cwd: '/',
    env: { PATH: SAFE_PATH },
    detached: true,
    stdio: [...stdio, 'pipe', 'pipe', 'pipe'],
  });
  const feed = (fd: number, data: Buffer | string) => {
    const stream = child.stdio[fd] as Writable | null;
    stream?.on('error', () => undefined);
    stream?.end(data);
  };
  feed(3, jailArgs(plan));
  const users = plan.identity ? userDatabase(plan.identity) : { passwd: '', group: '' };
  feed(4, users.passwd);
  feed(5, users.group);
  return child;
}

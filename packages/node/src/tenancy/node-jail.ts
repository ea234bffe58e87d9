/**
 * How this node confines its tasks, decided once at start: a bubblewrap sandbox per task when it can make one, a uid
 * per task from the host's pool when it is root, and control groups for limits when the host has them. A node that
 * cannot sandbox says why in its system information, and the master keeps normal users' tasks away from it unless an
 * administrator allows it.
 */
import os from 'node:os';
import path from 'node:path';
import type { SandboxInfo, TaskLimits } from '@crawldeck/shared';
import type { NodeJail } from '../run-process.ts';
import { nodeVariable } from '../config.ts';
import { cgroupVersion } from './cgroups.ts';
import { jailSupport } from './jail.ts';
import { DEFAULT_CLAIMS_DIR, DEFAULT_UID_BASE, DEFAULT_UID_POOL_SIZE, UidPool } from './uid-pool.ts';

type Log = (level: 'info' | 'warn' | 'error' | 'debug', msg: string, extra?: Record<string, unknown>) => void;

const numberVariable = (name: Parameters<typeof nodeVariable>[0], fallback: number): number => {
  const raw = nodeVariable(name);
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number ≥ 0`);
  return n;
};

/** The limits a task gets when neither its assignment nor the master's settings set one. */
export function nodeDefaultLimits(own: TaskLimits | undefined): Required<TaskLimits> {
  return {
    memoryMb: own?.memoryMb ?? numberVariable('CRAWLDECK_TASK_MEMORY_MB', 0),
    cpuPercent: own?.cpuPercent ?? numberVariable('CRAWLDECK_TASK_CPU_PERCENT', 0),
    maxProcesses: own?.maxProcesses ?? numberVariable('CRAWLDECK_TASK_MAX_PROCESSES', 0),
  };
}

/** The claims folder of the host's uid pool: in /run, or in the temp dir where /run cannot take it. */
function claimsDirs(): string[] {
  const own = nodeVariable('CRAWLDECK_TASK_UID_DIR');
  return own ? [own] : [DEFAULT_CLAIMS_DIR, path.join(os.tmpdir(), 'crawldeck-task-uids')];
}

function uidPool(nodeId: string, log: Log): UidPool | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const base = numberVariable('CRAWLDECK_TASK_UID_BASE', DEFAULT_UID_BASE);
  for (const claimsDir of claimsDirs()) {
    try {
      return new UidPool({ base, size: DEFAULT_UID_POOL_SIZE, claimsDir }, nodeId);
    } catch (err) {
      log('warn', 'task uid claims folder unusable', { claimsDir, err: String(err) });
    }
  }
  return undefined;
}

/** How this node confines tasks, and what it tells the master of it (the Nodes screen shows it). */
export function nodeJail(
  nodeId: string,
  places: { dataDir: string; workDir: string },
  limits: TaskLimits | undefined,
  log: Log,
): { jail: NodeJail | undefined; info: SandboxInfo } {
  const without = (reason: string) => {
    log('warn', 'tasks run without a sandbox', { reason });
    return { jail: undefined, info: { isolated: false, own_uids: false, limits: false, reason } };
  };
  if (nodeVariable('CRAWLDECK_SANDBOX') === 'off')
    return without('the sandbox is turned off on this node (CRAWLDECK_SANDBOX=off)');
  const root = process.getuid?.() === 0;
  const base = numberVariable('CRAWLDECK_TASK_UID_BASE', DEFAULT_UID_BASE);
  // The probe runs as a uid just past the pool, as tasks will, so a host that lets only root make namespaces is seen.
  const support = jailSupport(root ? base + DEFAULT_UID_POOL_SIZE : undefined);
  if (!support.ok) return without(support.reason);
  const pool = uidPool(nodeId, log);
  if (root && !pool) return without('no folder for the claims of task uids could be made');
  const jail: NodeJail = {
    bwrap: support.bwrap,
    pool,
    cgroups: cgroupVersion(),
    defaults: nodeDefaultLimits(limits),
    hidden: [places.workDir, places.dataDir],
    readable: [path.join(places.workDir, 'runtime'), path.join(places.workDir, 'envs')],
  };
  return { jail, info: { isolated: true, own_uids: !!pool, limits: !!jail.cgroups, reason: '' } };
}

import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/**
 * Whether an enabled worker node (not the master's own) is online. One that is offline, or only registered once,
 * runs nothing: it must not keep normal users' tasks off the master's node.
 */
export async function onlineWorkerExists(db: Kysely<DB>): Promise<boolean> {
  const worker = await db
    .selectFrom('nodes')
    .select('id')
    .where('type', '=', 'worker')
    .where('enabled', '=', 1)
    .where('status', '=', 'online')
    .limit(1)
    .executeTakeFirst();
  return worker !== undefined;
}

/** The role of a user; undefined when the user no longer exists. */
export async function userRole(db: Kysely<DB>, userId: string) {
  const user = await db.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirst();
  return user?.role;
}

/** The master-type nodes among these node ids. */
export async function masterNodeIdsAmong(db: Kysely<DB>, ids: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('nodes').select('id').where('id', 'in', ids).where('type', '=', 'master').execute();
  return new Set(rows.map((r) => r.id));
}

/** The nodes among these ids that did not report a sandbox for every task (their last registration's system info). */
export async function unsandboxedNodeIdsAmong(db: Kysely<DB>, ids: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('nodes').select(['id', 'system_info']).where('id', 'in', ids).execute();
  const out = new Set<string>();
  for (const r of rows) if (!reportsSandbox(r.system_info)) out.add(r.id);
  return out;
}

/** Whether a node's last registration reported a sandbox for every task. */
export function reportsSandbox(systemInfo: string | null): boolean {
  try {
    const info = JSON.parse(systemInfo ?? 'null') as { sandbox?: { isolated?: unknown } } | null;
    return info?.sandbox?.isolated === true;
  } catch {
    return false;
  }
}

/**
 * The fleet as stored, for telling why pending tasks wait: each node's kind, status and sandbox; only the nodes
 * `ids` when given (tasks made for given nodes need no other).
 */
export async function fleetForWaiting(db: Kysely<DB>, ids?: string[]) {
  let q = db.selectFrom('nodes').select(['id', 'type', 'status', 'enabled', 'system_info']);
  if (ids) q = q.where('id', 'in', ids);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    isMaster: r.type === 'master',
    status: r.status,
    enabled: r.enabled === 1,
    sandboxed: reportsSandbox(r.system_info),
  }));
}

/** The roles of these users (a user who no longer exists is left out). */
export async function userRoles(db: Kysely<DB>, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'role']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.role]));
}

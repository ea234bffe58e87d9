import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { getSetting } from '../system/settings.store.ts';
import { onlineWorkerExists, masterNodeIdsAmong, unsandboxedNodeIdsAmong, userRole } from './placement.store.ts';

/**
 * Settings → General "normal users' tasks on the master node". The master's own node shares the master's host,
 * so by default (off) tasks started by normal users stay off it while an enabled worker node is online; with none
 * online they run there (isolated like on any node). Tasks of admins and of no user (system) may always run
 * there.
 */
export const USER_TASKS_ON_MASTER_KEY = 'user_tasks_on_master';

/**
 * Settings → General "normal users' tasks on nodes without a sandbox". A node that cannot sandbox (no bubblewrap,
 * no user namespaces, turned off) runs every task under one identity where tasks see each other: by default (off)
 * normal users' tasks never go there. Tasks of admins and of no user may.
 */
export const USER_TASKS_UNSANDBOXED_KEY = 'user_tasks_unsandboxed';

/** True when tasks of normal users must not run on nodes without a sandbox. */
export async function unsandboxedNodesClosedToUsers(db: Kysely<DB>): Promise<boolean> {
  return !(await getSetting(db, USER_TASKS_UNSANDBOXED_KEY, false));
}

/** True when tasks of normal users must not run on master-type nodes right now. */
export async function masterNodeClosedToUsers(db: Kysely<DB>): Promise<boolean> {
  if (await getSetting(db, USER_TASKS_ON_MASTER_KEY, false)) return false;
  return onlineWorkerExists(db);
}

/** Whether tasks owned by this user count as a normal user's (a deleted owner does too; no owner is the system). */
export async function isNormalUsersTask(db: Kysely<DB>, ownerId: string | null | undefined): Promise<boolean> {
  if (!ownerId) return false;
  return (await userRole(db, ownerId)) !== 'admin';
}

/** The master-type nodes among these node ids. */
export async function masterNodeIds(db: Kysely<DB>, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  return masterNodeIdsAmong(db, ids);
}

/** The nodes among these ids that cannot sandbox their tasks (as they last registered). */
export async function unsandboxedNodeIds(db: Kysely<DB>, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  return unsandboxedNodeIdsAmong(db, ids);
}

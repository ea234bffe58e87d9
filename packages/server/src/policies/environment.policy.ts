/**
 * Node environments (languages and packages on nodes): every signed-in user sees the states, so they know where a
 * spider can run; only administrators install, uninstall, upgrade or change the indexes, because a package manager
 * runs with the node's own rights, and only they read the install jobs, whose logs tell about the indexes and the
 * node's machine.
 */
import { forbidden } from '../http/errors.ts';
import { isAdmin, type Access, type Actor } from './types.ts';

export function canEnvironment(actor: Actor, access: Access): boolean {
  return access === 'read' || isAdmin(actor);
}

/** Refuses (403) what the policy does not allow. */
export function assertEnvironment(actor: Actor, access: Access): void {
  if (!canEnvironment(actor, access)) throw forbidden('forbidden: only administrators install on nodes');
}

/** The install jobs and their logs: administrators only. */
export function canReadEnvJobs(actor: Actor): boolean {
  return isAdmin(actor);
}

/** Refuses (403) the install jobs to anyone but an administrator. */
export function assertEnvJobs(actor: Actor): void {
  if (!canReadEnvJobs(actor)) throw forbidden('forbidden: only administrators see install jobs and their logs');
}

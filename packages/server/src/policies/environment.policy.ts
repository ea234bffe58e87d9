/**
 * Node environments (languages and packages on nodes): every signed-in user sees the states and the jobs, so they
 * know where a spider can run; only administrators install, uninstall, upgrade or change the indexes, because
 * a package manager runs with the node's own rights.
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

/**
 * Projects: every signed-in user sees all projects and creates their own; the owner or an administrator changes or
 * deletes one. The spiders a project lists are filtered by the spider policy.
 */
import type { Selectable } from 'kysely';
import type { DB } from '../store/schema.ts';
import { forbidden } from '../http/errors.ts';
import { isAdmin, type Access, type Actor } from './types.ts';

export function canProject(actor: Actor, row: Pick<Selectable<DB['projects']>, 'owner_id'>, access: Access): boolean {
  return access === 'read' || isAdmin(actor) || row.owner_id === actor.id;
}

export function assertProject(actor: Actor, row: Pick<Selectable<DB['projects']>, 'owner_id'>, access: Access): void {
  if (!canProject(actor, row, access))
    throw forbidden('forbidden: only the owner or an administrator may change this project');
}

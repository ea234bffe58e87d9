/** Global variables (environment of every task): every signed-in user reads them; administrators change them. */
import { isAdmin, type Access, type Actor } from './types.ts';

export function canVariable(actor: Actor, access: Access): boolean {
  return access === 'read' || isAdmin(actor);
}

/**
 * System settings (the `settings` table): administrators read and change them. A user's own preferences live on
 * the user (user policy), not here.
 */
import { isAdmin, type Access, type Actor } from './types.ts';

export function canSetting(actor: Actor, _access: Access): boolean {
  return isAdmin(actor);
}

/**
 * Users: administrators list, add, change and delete users; a normal user reads and changes only themself
 * (GET/POST /api/me: e-mail, password, their own settings; the role is not among the fields they can send).
 */
import { everything, isAdmin, type Access, type Actor, type Filter } from './types.ts';

export function canUser(actor: Actor, target: { id: string }, access: Access): boolean {
  return isAdmin(actor) || (access !== 'run' && target.id === actor.id);
}

export function userReadFilter(actor: Actor): Filter<'users'> {
  return (eb) => (isAdmin(actor) ? everything : eb('users.id', '=', actor.id));
}

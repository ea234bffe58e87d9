/**
 * API tokens: everyone, administrators included, sees, creates and revokes only their own personal tokens; a token
 * of another user does not exist for the caller (404).
 */
import { type Access, type Actor, type Filter } from './types.ts';

export function canToken(actor: Actor, row: { user_id: string }, _access: Access): boolean {
  return row.user_id === actor.id;
}

export function tokenFilter(actor: Actor): Filter<'tokens'> {
  return (eb) => eb.and([eb('tokens.user_id', '=', actor.id), eb('tokens.kind', '=', 'api')]);
}

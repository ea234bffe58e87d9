/**
 * API tokens: everyone, administrators included, sees, creates and revokes only their own personal tokens; a token
 * of another user does not exist for the caller (404). Sessions are no API tokens: they never appear here.
 */
import type { Actor, Filter } from './types.ts';

/** The caller's own API tokens: the only ones the token routes list, count, replace and revoke. */
export function tokenFilter(actor: Actor): Filter<'tokens'> {
  return (eb) => eb.and([eb('tokens.user_id', '=', actor.id), eb('tokens.kind', '=', 'api')]);
}

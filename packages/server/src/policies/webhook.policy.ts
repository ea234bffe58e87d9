/** Webhooks carry secrets and reach outside: administrators only, for reading as for changing. */
import { everything, isAdmin, nothing, type Access, type Actor, type Filter } from './types.ts';

export function canWebhook(actor: Actor, _access: Access): boolean {
  return isAdmin(actor);
}

export function webhookFilter(actor: Actor): Filter<'webhooks'> {
  return () => (isAdmin(actor) ? everything : nothing);
}

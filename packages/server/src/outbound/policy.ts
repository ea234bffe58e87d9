import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { getSetting } from '../features/system/settings.store.ts';
import { AddressPolicy, parseAllowList } from './addresses.ts';

/** Settings key of the admin's allow-list (CIDR ranges as text, one or more per line or comma separated). */
export const OUTBOUND_ALLOW_KEY = 'outbound_allow';

/** The address policy of this moment: built-in refusals opened by the environment's and the admin's ranges. */
export async function outboundPolicy(db: Kysely<DB>, envAllow: string): Promise<AddressPolicy> {
  const stored = await getSetting(db, OUTBOUND_ALLOW_KEY, '');
  let admin: ReturnType<typeof parseAllowList> = [];
  try {
    admin = parseAllowList(typeof stored === 'string' ? stored : '');
  } catch {
    admin = []; // validated when saved; a hand-edited bad value opens nothing
  }
  return new AddressPolicy([...parseAllowList(envAllow), ...admin]);
}

import type { Spider } from '@crawldeck/shared';
import type { ApiClient } from '../api-client.ts';
import { ID } from '../ids.ts';

/** The signed-in user's spider of that exact name, if any (names are unique per owner). */
export async function findOwnSpider(api: ApiClient, name: string): Promise<Spider | undefined> {
  const me = (await api.call<{ _id: string }>('GET', '/me')).data;
  const list = (
    await api.call<Spider[] | { list: Spider[] }>('GET', '/spiders', { query: { keyword: name, page_size: 1000 } })
  ).data;
  const rows = Array.isArray(list) ? list : list.list;
  return rows.find((s) => s.name === name && s.owner_id === me._id);
}

/** A spider given by id or by name: the user's own first, else the only readable one of that name. */
export async function resolveSpider(api: ApiClient, ref: string): Promise<Spider> {
  if (ID.test(ref)) return (await api.call<Spider>('GET', `/spiders/${ref}`)).data;
  const own = await findOwnSpider(api, ref);
  if (own) return own;
  const list = (
    await api.call<Spider[] | { list: Spider[] }>('GET', '/spiders', { query: { keyword: ref, page_size: 1000 } })
  ).data;
  const named = (Array.isArray(list) ? list : list.list).filter((s) => s.name === ref);
  if (named.length === 1) return named[0];
  if (!named.length) throw new Error(`no spider named "${ref}"; \`crawldeck deploy\` creates one`);
  throw new Error(`several spiders are named "${ref}"; give its id instead`);
}

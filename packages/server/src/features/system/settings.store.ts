import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** System-wide settings as JSON values under string keys (Settings → General, Database, …). */
export async function getSetting<T>(db: Kysely<DB>, key: string, fallback: T): Promise<T> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row ? (JSON.parse(row.value) as T) : fallback;
}

export async function putSetting(db: Kysely<DB>, key: string, value: unknown): Promise<void> {
  const json = JSON.stringify(value);
  await db
    .insertInto('settings')
    .values({ key, value: json })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: json }))
    .execute();
}

/** The console's address as people open it; notifications link back to tasks and nodes under it. */
export const PUBLIC_URL_KEY = 'public_url';

import { sql, type Kysely, type Selectable } from 'kysely';
import type { SiteFilter } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { pageWithCount, type PageWindow } from '../../store/page.ts';

export type SiteRow = Selectable<DB['sites']>;
export type CollectedUrlRow = Selectable<DB['collected_urls']>;
export type SiteFields = Omit<SiteRow, 'id' | 'create_ts' | 'update_ts'>;

const INSERT_CHUNK = 500;

/** LIKE pattern for a substring search with %, _ and \ taken literally. */
function likePattern(keyword: string): string {
  return `%${keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Sites by category and keyword (domain, name, description): most popular (lowest rank) first, unranked last. */
export function listSites(db: Kysely<DB>, filter: SiteFilter, keyword: string | undefined, page: PageWindow) {
  let q = db.selectFrom('sites');
  if (filter.main_category) q = q.where('main_category', '=', filter.main_category);
  if (filter.category) q = q.where('category', '=', filter.category);
  if (keyword) {
    const p = likePattern(keyword);
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(domain)`, 'like', sql`${p} ESCAPE '\\'`),
        eb(sql`lower(name)`, 'like', sql`${p} ESCAPE '\\'`),
        eb(sql`lower(description)`, 'like', sql`${p} ESCAPE '\\'`),
      ]),
    );
  }
  return pageWithCount(
    q,
    (b) =>
      b
        .selectAll()
        .orderBy(sql`CASE WHEN rank IS NULL THEN 1 ELSE 0 END`)
        .orderBy('rank', 'asc')
        .orderBy('domain', 'asc'),
    page,
  );
}

export async function mainCategories(db: Kysely<DB>): Promise<string[]> {
  const rows = await db
    .selectFrom('sites')
    .select('main_category')
    .distinct()
    .where('main_category', '!=', '')
    .orderBy('main_category')
    .execute();
  return rows.map((r) => r.main_category);
}

/** Categories in use, of one main category when given. */
export async function categories(db: Kysely<DB>, mainCategory: string | undefined): Promise<string[]> {
  let q = db.selectFrom('sites').select('category').distinct().where('category', '!=', '');
  if (mainCategory) q = q.where('main_category', '=', mainCategory);
  const rows = await q.orderBy('category').execute();
  return rows.map((r) => r.category);
}

/** Sets a site's category; undefined when no such site. */
export async function setSiteCategory(db: Kysely<DB>, id: string, category: string): Promise<SiteRow | undefined> {
  const res = await db
    .updateTable('sites')
    .set({ category, update_ts: Date.now() })
    .where('id', '=', id)
    .executeTakeFirst();
  if (!Number(res.numUpdatedRows)) return undefined;
  return db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Upserts sites by domain in one transaction, in chunks; says how many existed before. */
export async function upsertSites(
  db: Kysely<DB>,
  rows: SiteFields[],
  newId: () => string,
  now: number,
): Promise<{ existing: number }> {
  return db.transaction().execute(async (trx) => {
    const existing = new Set<string>();
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const domains = rows.slice(i, i + INSERT_CHUNK).map((r) => r.domain);
      for (const r of await trx.selectFrom('sites').select('domain').where('domain', 'in', domains).execute())
        existing.add(r.domain);
    }
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK).map((r) => ({ id: newId(), ...r, create_ts: now, update_ts: now }));
      await trx
        .insertInto('sites')
        .values(chunk)
        .onConflict((oc) =>
          oc.column('domain').doUpdateSet((eb) => ({
            main_category: eb.ref('excluded.main_category'),
            category: eb.ref('excluded.category'),
            rank: eb.ref('excluded.rank'),
            name: eb.ref('excluded.name'),
            description: eb.ref('excluded.description'),
            update_ts: eb.ref('excluded.update_ts'),
          })),
        )
        .execute();
    }
    return { existing: existing.size };
  });
}

/** Collected URLs, newest first, of one region when given. */
export function listUrls(db: Kysely<DB>, regionCode: string | undefined, page: PageWindow) {
  let q = db.selectFrom('collected_urls');
  if (regionCode) q = q.where('region_code', '=', regionCode);
  return pageWithCount(q, (b) => b.selectAll().orderBy('create_ts', 'desc').orderBy('id', 'desc'), page);
}

export async function insertUrl(db: Kysely<DB>, row: CollectedUrlRow): Promise<void> {
  await db.insertInto('collected_urls').values(row).execute();
}

export function getUrl(db: Kysely<DB>, id: string): Promise<CollectedUrlRow | undefined> {
  return db.selectFrom('collected_urls').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateUrl(
  db: Kysely<DB>,
  id: string,
  patch: Pick<CollectedUrlRow, 'url' | 'region_code' | 'title' | 'update_ts'>,
): Promise<void> {
  await db.updateTable('collected_urls').set(patch).where('id', '=', id).execute();
}

/** Deletes a collected URL; false when there was none. */
export async function deleteUrl(db: Kysely<DB>, id: string): Promise<boolean> {
  const res = await db.deleteFrom('collected_urls').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

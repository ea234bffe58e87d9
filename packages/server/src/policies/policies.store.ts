/**
 * The lookups the resource policies make and the SQL pieces their list filters are built from. The rules
 * themselves (who may do what) stay in the policy files; this is only how the facts they need are read.
 */
import { sql, type ExpressionBuilder, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../store/schema.ts';

/** The condition every row meets (an administrator's filter). */
export const everything = sql<SqlBool>`1 = 1`;

/** The condition no row meets (deny by default). */
export const nothing = sql<SqlBool>`1 = 0`;

/** Ids of the spiders meeting `filter`, as an uncorrelated sub-query for `eb('x.spider_id', 'in', …)`. */
export function spiderIdsWhere<T extends keyof DB>(
  eb: ExpressionBuilder<DB, T>,
  filter: (eb: ExpressionBuilder<DB, 'spiders'>) => Expression<SqlBool>,
) {
  // Uncorrelated: the sub-query refers to no table of the outer query, so it is built from a bare builder.
  const bare = eb as unknown as ExpressionBuilder<DB, never>;
  return bare.selectFrom('spiders').select('spiders.id').where(filter);
}

/** The whole stored spider, for the callers that go on to use it once the policy allows. */
export function findSpiderRow(db: Kysely<DB>, id: string) {
  return db.selectFrom('spiders').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Owner and visibility of a spider, the facts of its policy. */
export function findSpiderFacts(db: Kysely<DB>, id: string) {
  return db.selectFrom('spiders').select(['owner_id', 'is_public']).where('id', '=', id).executeTakeFirst();
}

export async function findCollectionOwner(db: Kysely<DB>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('result_collections').select('owner_id').where('name', '=', name).executeTakeFirst();
  return row?.owner_id;
}

/** Records `ownerId` as the collection's owner unless it has one already (the first user keeps it). */
export async function insertCollectionOwner(db: Kysely<DB>, name: string, ownerId: string): Promise<void> {
  await db
    .insertInto('result_collections')
    .values({ name, owner_id: ownerId, create_ts: Date.now() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** A user as an actor (id and role); undefined when that user is gone. */
export function findActor(db: Kysely<DB>, userId: string) {
  return db.selectFrom('users').select(['id', 'role']).where('id', '=', userId).executeTakeFirst();
}

export function findNode(db: Kysely<DB>, id: string) {
  return db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirst();
}

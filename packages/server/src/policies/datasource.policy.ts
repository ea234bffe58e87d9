/**
 * Results data sources (connections to the operator's databases): administrators add, change, test and delete
 * them and see their settings; every user may see their names to point a spider at one. Where a spider writes
 * inside a data source is claimed like a results collection, keyed by the real table (server, database, schema and
 * table, see datasource-identity.ts in the shared package), not by the entry: the first spider owner keeps the table, so nobody writes
 * into, dedupes against or overwrites another user's table, not even through a second entry for the same database.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { forbidden } from '../http/errors.ts';
import { tryClaimCollection } from './collection.policy.ts';
import { isAdmin, type Access, type Actor } from './types.ts';

export function canDataSource(actor: Actor, access: Access): boolean {
  return access === 'read' || isAdmin(actor);
}

export function assertDataSource(actor: Actor, access: Access): void {
  if (!canDataSource(actor, access)) throw forbidden('forbidden: only administrators manage data sources');
}

/** Claims a table of a data source, by its identity, for a spider's owner (403 when another user's spider has it). */
export async function claimDataSourceTable(
  db: Kysely<DB>,
  owner: Actor,
  table: { identity: string; name: string },
): Promise<void> {
  if (!(await tryClaimCollection(db, owner, table.identity)))
    throw forbidden(
      `forbidden: the table "${table.name}" of this database belongs to another user's spider; choose another table name`,
    );
}

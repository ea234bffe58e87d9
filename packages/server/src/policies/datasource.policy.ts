/**
 * Results data sources (connections to the operator's databases): administrators add, change, test and delete
 * them and see their settings; every user may see their names to point a spider at one. Where a spider writes
 * inside a data source is claimed like a results collection (`datasource:<id>/<table>`): the first spider owner
 * keeps the table, so nobody writes into, dedupes against or overwrites another user's table.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { forbidden } from '../http/errors.ts';
import { claimCollection } from './collection.policy.ts';
import { isAdmin, type Access, type Actor } from './types.ts';

export function canDataSource(actor: Actor, access: Access): boolean {
  return access === 'read' || isAdmin(actor);
}

export function assertDataSource(actor: Actor, access: Access): void {
  if (!canDataSource(actor, access)) throw forbidden('forbidden: only administrators manage data sources');
}

/** Claims a table of a data source for a spider's owner (403 when another user's spider has it). */
export function claimDataSourceTable(db: Kysely<DB>, owner: Actor, dataSourceId: string, table: string): Promise<void> {
  return claimCollection(db, owner, `datasource:${dataSourceId}/${table}`);
}

/**
 * Nodes' own keys for the node API, kept as hashes: issue (on joining, or by an administrator), look up by the
 * presented key, revoke, and the state the console shows.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

export interface CredentialRow {
  node_id: string;
  create_ts: number;
  last_used_ts: number | null;
  revoke_ts: number | null;
}

/** Stores the first key of a node; false when the node already has one (in use or revoked). */
export async function insertFirstKey(db: Kysely<DB>, nodeId: string, keyHash: string, now: number): Promise<boolean> {
  const r = await db
    .insertInto('node_credentials')
    .values({ node_id: nodeId, key_hash: keyHash, create_ts: now, last_used_ts: null, revoke_ts: null })
    .onConflict((oc) => oc.column('node_id').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Replaces a node's key (a revoked one included) with a new one in use. */
export async function replaceKey(db: Kysely<DB>, nodeId: string, keyHash: string, now: number): Promise<void> {
  await db
    .insertInto('node_credentials')
    .values({ node_id: nodeId, key_hash: keyHash, create_ts: now, last_used_ts: null, revoke_ts: null })
    .onConflict((oc) =>
      oc.column('node_id').doUpdateSet({ key_hash: keyHash, create_ts: now, last_used_ts: null, revoke_ts: null }),
    )
    .execute();
}

/** Revokes a node's key; false when it has none in use. */
export async function revokeKey(db: Kysely<DB>, nodeId: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('node_credentials')
    .set({ revoke_ts: now })
    .where('node_id', '=', nodeId)
    .where('revoke_ts', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The node whose key in use has this hash. */
export async function nodeOfKey(
  db: Kysely<DB>,
  keyHash: string,
): Promise<{ node_id: string; last_used_ts: number | null } | undefined> {
  return db
    .selectFrom('node_credentials')
    .select(['node_id', 'last_used_ts'])
    .where('key_hash', '=', keyHash)
    .where('revoke_ts', 'is', null)
    .executeTakeFirst();
}

export async function touchKey(db: Kysely<DB>, nodeId: string, now: number): Promise<void> {
  await db.updateTable('node_credentials').set({ last_used_ts: now }).where('node_id', '=', nodeId).execute();
}

export function credentialOf(db: Kysely<DB>, nodeId: string): Promise<CredentialRow | undefined> {
  return db
    .selectFrom('node_credentials')
    .select(['node_id', 'create_ts', 'last_used_ts', 'revoke_ts'])
    .where('node_id', '=', nodeId)
    .executeTakeFirst();
}

/**
 * Per-node credentials. The shared node key only lets a new node join: on joining the master gives the node a key
 * of its own, and from then on every node route accepts that node only with it, bound to its id. An administrator
 * rotates a node's key (the connected node receives the new one) or revokes it (the node is refused until it is
 * given a new one), and may turn joining with the shared key off.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { hashToken, newRawToken, nodeKeyMatches } from '../../http/keys.ts';
import { getSetting } from '../system/settings.store.ts';
import { credentialOf, insertFirstKey, nodeOfKey, replaceKey, revokeKey, touchKey } from './credentials.store.ts';

/** Setting: whether a new node may join with the shared key (on by default, so a single host needs no step). */
export const NODE_JOIN_SHARED_KEY = 'node_join_shared_key';

export const joinWithSharedKey = (db: Kysely<DB>): Promise<boolean> => getSetting(db, NODE_JOIN_SHARED_KEY, true);

/** Who presented a node key: a node joining with the shared key, or a node by its own key. */
export type NodeCaller = { kind: 'joining' } | { kind: 'node'; nodeId: string };

// Writing last_used_ts on every batch would turn each ingest into one more write; once a minute is enough to show.
const LAST_USED_GRANULARITY_MS = 60_000;

/** The caller behind a presented key, or undefined when it is neither the shared key nor a node's key in use. */
export async function nodeCaller(
  db: Kysely<DB>,
  sharedKey: string,
  presented: string | string[] | undefined,
): Promise<NodeCaller | undefined> {
  const key = Array.isArray(presented) ? presented[0] : presented;
  if (!key) return undefined;
  if (nodeKeyMatches(sharedKey, key)) return { kind: 'joining' };
  const row = await nodeOfKey(db, hashToken(key));
  if (!row) return undefined;
  const now = Date.now();
  if (row.last_used_ts == null || now - Number(row.last_used_ts) > LAST_USED_GRANULARITY_MS) {
    await touchKey(db, row.node_id, now);
  }
  return { kind: 'node', nodeId: row.node_id };
}

const HAS_KEY = 'this node has a key of its own: the shared key does not replace it';

/**
 * Why a node may not join with the shared key (undefined: it may): joining is turned off, or the node already has a
 * key — in use or revoked — which the shared key never replaces.
 */
export async function mayJoin(db: Kysely<DB>, nodeId: string): Promise<string | undefined> {
  if (!(await joinWithSharedKey(db))) return 'joining with the shared node key is turned off';
  return (await credentialOf(db, nodeId)) ? HAS_KEY : undefined;
}

/** A node that joined with the shared key gets its first own key (refused when another joined as it meanwhile). */
export async function joinKey(db: Kysely<DB>, nodeId: string): Promise<{ key: string } | { refused: string }> {
  const key = newRawToken();
  if (await insertFirstKey(db, nodeId, hashToken(key), Date.now())) return { key };
  return { refused: HAS_KEY };
}

/** A new key for a node (its old one, in use or revoked, stops working). */
export async function rotateKey(db: Kysely<DB>, nodeId: string): Promise<string> {
  const key = newRawToken();
  await replaceKey(db, nodeId, hashToken(key), Date.now());
  return key;
}

export const revokeNodeKey = (db: Kysely<DB>, nodeId: string) => revokeKey(db, nodeId, Date.now());

export const nodeCredential = credentialOf;

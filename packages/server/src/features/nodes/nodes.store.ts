/**
 * The node registry as the nodes API reads and edits it: the list in chunks, one node, its metrics history, edits and
 * removal. What execution records of nodes (registration, status, heartbeats) is in execution/node-state.store.ts.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { NodeRow } from '../execution/node-state.store.ts';

/** Where the node list's order (type, creation, id) continues after a chunk. */
export type NodeKey = Pick<NodeRow, 'type' | 'create_ts' | 'id'>;

/** Up to `limit` nodes in the list's order, after `after` (from the start without it). */
export function listNodesChunk(db: Kysely<DB>, after: NodeKey | undefined, limit: number): Promise<NodeRow[]> {
  let q = db.selectFrom('nodes').selectAll();
  if (after) {
    const { type, create_ts, id } = after;
    q = q.where((eb) =>
      eb.or([
        eb('type', '>', type),
        eb.and([eb('type', '=', type), eb('create_ts', '>', create_ts)]),
        eb.and([eb('type', '=', type), eb('create_ts', '=', create_ts), eb('id', '>', id)]),
      ]),
    );
  }
  return q.orderBy('type').orderBy('create_ts').orderBy('id').limit(limit).execute();
}

/** How many nodes are stored and those written (other than last seen and metrics) since `since`. */
export async function nodesChangedSince(
  db: Kysely<DB>,
  since: number,
  limit: number,
): Promise<{ count: number; rows: NodeRow[] }> {
  const [count, rows] = await Promise.all([
    db
      .selectFrom('nodes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db.selectFrom('nodes').selectAll().where('update_ts', '>=', since).limit(limit).execute(),
  ]);
  return { count: Number(count.n), rows };
}

/** What changes between the list's reads of these nodes: their status, runners in use, metrics and last heard. */
export function nodesLiveState(db: Kysely<DB>, ids: string[]) {
  return db
    .selectFrom('nodes')
    .select(['id', 'status', 'running', 'metrics', 'last_seen_ts'])
    .where('id', 'in', ids)
    .execute();
}

export function metricsSince(db: Kysely<DB>, nodeId: string, since: number) {
  return db
    .selectFrom('node_metrics')
    .select(['ts', 'cpu', 'mem', 'disk', 'running'])
    .where('node_id', '=', nodeId)
    .where('ts', '>=', since)
    .orderBy('ts')
    .execute();
}

export interface NodeEdit {
  name?: string;
  description?: string;
  enabled?: boolean;
  max_runners?: number;
}

/** The node that has this name, if one does (names are unique: a joining node gets a free one). */
export async function nodeIdNamed(db: Kysely<DB>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('nodes').select('id').where('name', '=', name).executeTakeFirst();
  return row?.id;
}

export async function updateNode(db: Kysely<DB>, id: string, edit: NodeEdit): Promise<void> {
  await db
    .updateTable('nodes')
    .set({
      ...(edit.name !== undefined ? { name: edit.name } : {}),
      ...(edit.description !== undefined ? { description: edit.description } : {}),
      ...(edit.enabled !== undefined ? { enabled: edit.enabled ? 1 : 0 } : {}),
      ...(edit.max_runners !== undefined ? { max_runners: edit.max_runners } : {}),
      update_ts: Date.now(),
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteNode(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('nodes').where('id', '=', id).execute();
}

/**
 * Nodes: every signed-in user sees the nodes, their metrics and their live status events (to choose where to run);
 * only administrators change, join or delete them. A node's task list is filtered by the task policy.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { isAdmin, type Access, type Actor } from './types.ts';
import { findNode } from './policies.store.ts';

export function canNode(actor: Actor, access: Access): boolean {
  return access === 'read' || isAdmin(actor);
}

/** Loads a node for the caller: 404 when it does not exist, 403 when the policy refuses. */
export async function nodeFor(db: Kysely<DB>, actor: Actor, id: string, access: Access) {
  const n = await findNode(db, id);
  if (!n) throw notFound('node');
  if (!canNode(actor, access)) throw forbidden('forbidden: administrators only');
  return n;
}

/**
 * A node acts only on the tasks assigned to it: another node's task is answered as if it did not exist (404), so a
 * node's key can neither write to nor learn of other nodes' tasks. `task` undefined: the task is gone.
 */
export function taskOnNode<T extends { node_id: string }>(nodeId: string, task: T | undefined): T | undefined {
  if (task && task.node_id !== nodeId) throw notFound('task');
  return task;
}

/** A node's socket speaks only for the node whose key opened it. */
export const nodeMayRegisterAs = (keyNodeId: string, registeredId: string): boolean => keyNodeId === registeredId;

/**
 * Who a node socket speaks for: a node registers only as the node whose own key opened the socket, or joins with
 * the shared key when it may (nodes/credentials.ts); and a node reports only on its own tasks.
 */
import type { WebSocket } from 'ws';
import type { Kysely } from 'kysely';
import type { NodeToMaster } from '@crawldeck/shared';
import type { CoreContext } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { nodeMayRegisterAs, taskOnNode } from '../../policies/index.ts';
import { mayJoin, type NodeCaller } from '../nodes/credentials.ts';
import { taskForIngest } from './node-state.store.ts';

type Register = Extract<NodeToMaster, { type: 'register' }>;

/**
 * Whether the caller may register as this node: a node only as itself, a joining node only when it may join and
 * has no key yet (checked before its session opens, so a refused caller never cuts the node's live connection).
 * A refused caller's socket is closed with 4403 and the reason.
 */
export async function admitNode(ctx: CoreContext, socket: WebSocket, msg: Register, caller: NodeCaller) {
  const refused =
    caller.kind === 'node'
      ? nodeMayRegisterAs(caller.nodeId, msg.nodeId)
        ? undefined
        : 'this key belongs to another node'
      : await mayJoin(ctx.store.db, msg.nodeId);
  if (refused === undefined) return true;
  ctx.log.warn({ nodeId: msg.nodeId }, `node refused: ${refused}`);
  socket.close(4403, refused);
  return false;
}

/** Whether a task a node speaks of is its own, or gone (which the handlers answer as for any node). */
export async function taskIsOwn(db: Kysely<DB>, nodeId: string, taskId: string): Promise<boolean> {
  try {
    taskOnNode(nodeId, await taskForIngest(db, taskId));
    return true;
  } catch {
    return false;
  }
}

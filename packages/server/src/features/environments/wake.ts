/**
 * Nudges a connected node that environment jobs wait for it (the node then claims them over HTTP). The one place
 * this feature touches the node sessions; a node connected to another master claims at its next poll.
 */
import type { AppContext } from '../../context.ts';

export function wakeNode(ctx: AppContext, nodeId: string): void {
  ctx.execution.sessions.sendTo(nodeId, { type: 'env.wake' });
}

/**
 * Nudges nodes that environment jobs or new index settings wait for them (the node then claims over HTTP). The one
 * place this feature touches the node sessions: a node connected to this master is told at once, the other masters
 * sharing the store tell theirs.
 */
import type { AppContext } from '../../context.ts';

export function wakeNodes(ctx: AppContext, nodeIds: string[]): Promise<void> {
  return ctx.execution.wakeEnvironments(nodeIds);
}

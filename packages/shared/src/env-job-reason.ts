/**
 * Why an environment job failed, when the reason is the node's situation rather than the package tool's words: the
 * node cannot become root for its package manager, or the node was offline or went away. The node and the master
 * write the job's error text with the sentences below; the console reads the reason back and shows it in the
 * reader's language, with the same word for an offline node as the node's status.
 */
import { Type, type Static } from '@sinclair/typebox';

export const ENV_JOB_REASON_KINDS = ['needs_root', 'node_offline', 'node_lost'] as const;

export const EnvJobReason = Type.Object({
  kind: Type.Union(ENV_JOB_REASON_KINDS.map((k) => Type.Literal(k))),
  /** For `needs_root`: the user the node runs as and the package manager it needed root for. */
  user: Type.Optional(Type.String()),
  tool: Type.Optional(Type.String()),
});
export type EnvJobReason = Static<typeof EnvJobReason>;

/** The error of a language job on a node that is not root and may not use `sudo` without a password. */
export function needsRootError(user: string, tool: string): string {
  return (
    `needs root: the node runs as "${user}", which may not run ${tool} through sudo without a password; ` +
    `run the node as root, allow "${user}" password-less sudo for ${tool}, or install the language by hand`
  );
}
const NEEDS_ROOT = /^needs root: the node runs as "([^"]*)", which may not run (\S+) through sudo/;

export const NODE_OFFLINE_PREFIX = 'expired: its node did not take it';
export const NODE_LOST_ERRORS = ['the node restarted while this job ran', 'expired: its node did not report on it'];

export function envJobReason(error: string): EnvJobReason | null {
  const root = NEEDS_ROOT.exec(error);
  if (root) return { kind: 'needs_root', user: root[1], tool: root[2] };
  if (error.startsWith(NODE_OFFLINE_PREFIX)) return { kind: 'node_offline' };
  if (NODE_LOST_ERRORS.some((e) => error.startsWith(e))) return { kind: 'node_lost' };
  return null;
}

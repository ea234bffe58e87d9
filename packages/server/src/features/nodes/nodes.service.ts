/**
 * Nodes as the API shows them. Where this master holds a node's session, its live state (status, running count,
 * latest metrics, last heard) wins over the stored row, which is written in batches.
 */
import type { NodeInfo } from '@crawldeck/shared';
import { iso } from '../../http/envelope.ts';
import type { NodeRow } from '../execution/node-state.store.ts';
import { statusOf, type Session } from '../execution/sessions.ts';

/**
 * The stored JSON of a node's host facts and metrics, parsed once per distinct text: a fleet's node list would
 * otherwise parse thousands of unchanged documents on every request. Keyed by node; the entry of a deleted node
 * goes when the node does.
 */
const parsed = new Map<
  string,
  { systemInfo: [string, NodeInfo['systemInfo']]; metrics: [string, NodeInfo['metrics']] }
>();

function parsedOnce<T>(slot: [string, T], raw: string): T {
  if (slot[0] !== raw) {
    slot[0] = raw;
    slot[1] = JSON.parse(raw || 'null') as T;
  }
  return slot[1];
}

function hostFacts(n: NodeRow) {
  let p = parsed.get(n.id);
  if (!p) {
    p = { systemInfo: ['\u0000', null], metrics: ['\u0000', null] };
    parsed.set(n.id, p);
  }
  return { systemInfo: parsedOnce(p.systemInfo, n.system_info), metrics: parsedOnce(p.metrics, n.metrics) };
}

export function forgetNode(id: string): void {
  parsed.delete(id);
}

export function presentNode(n: NodeRow, live?: Session): NodeInfo {
  const facts = hostFacts(n);
  return {
    _id: n.id,
    name: n.name,
    description: n.description,
    type: n.type === 'master' ? 'master' : 'worker',
    is_master: n.type === 'master',
    status: live ? statusOf(live) : (n.status as NodeInfo['status']),
    enabled: n.enabled === 1,
    max_runners: n.max_runners,
    running: live ? live.active.size : n.running,
    ip: n.ip,
    systemInfo: facts.systemInfo,
    metrics: live?.metrics ?? facts.metrics,
    last_seen_ts: iso(live ? Math.max(live.lastSeenTs, Number(n.last_seen_ts ?? 0)) : n.last_seen_ts),
    create_ts: iso(n.create_ts),
    update_ts: iso(n.update_ts),
  };
}

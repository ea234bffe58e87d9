/**
 * Nodes as the API shows them. Where this master holds a node's session, its live state (status, running count,
 * latest metrics, last heard) wins over the stored row, which is written in batches.
 */
import type { NodeInfo } from '@crawldeck/shared';
import { iso } from '../../http/envelope.ts';
import type { NodeRow } from './nodes.store.ts';
import { statusOf, type Session } from './sessions.ts';

export function presentNode(n: NodeRow, live?: Session): NodeInfo {
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
    systemInfo: JSON.parse(n.system_info || 'null'),
    metrics: live?.metrics ?? JSON.parse(n.metrics || 'null'),
    last_seen_ts: iso(live ? Math.max(live.lastSeenTs, Number(n.last_seen_ts ?? 0)) : n.last_seen_ts),
    create_ts: iso(n.create_ts),
    update_ts: iso(n.update_ts),
  };
}

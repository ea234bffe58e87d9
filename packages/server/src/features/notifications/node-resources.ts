/**
 * Node resource rules: a node's CPU, memory or disk usage above a rule's threshold for the rule's duration fires
 * the rule once for that node; the episode ends when a reading is back at the threshold or below, and only a new
 * episode fires again. The readings are the latest heartbeats of the nodes connected to this master, as their
 * sessions keep them (each node beats to one master); the
 * episodes (since when above, fired or not) are in the store, so a restarted master, or the master a node moves
 * to, carries on the same episode, and a conditional update lets exactly one master fire it.
 */
import { NODE_RESOURCE_EVENTS, type NodeMetrics, type NodeResourceEvent } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { Notifier } from './notifications.service.ts';
import {
  beginNodeState,
  claimNodeState,
  endNodeState,
  listEnabledRules,
  nodeForRules,
  nodeStates,
  type RuleRow,
} from './notifications.store.ts';

/** The reading each event compares. */
const METRIC: Record<NodeResourceEvent, 'cpu' | 'mem' | 'disk'> = {
  node_cpu_above: 'cpu',
  node_mem_above: 'mem',
  node_disk_above: 'disk',
};

/** A node's latest reading is used while it is at most this many heartbeat intervals old (the node still beats here). */
const FRESH_BEATS = 3;

export class NodeResourceWatch {
  constructor(
    private readonly ctx: AppContext,
    private readonly notifier: Notifier,
  ) {}

  private get db() {
    return this.ctx.store.db;
  }

  /** Checks the rules every heartbeat interval as the `node-resource-alerts` job. */
  start(): void {
    this.ctx.jobs.every({
      name: 'node-resource-alerts',
      everyMs: this.ctx.config.nodeHeartbeatMs,
      run: () => this.check(Date.now()),
    });
  }

  /** One look at the latest readings of the nodes connected to this master. */
  async check(now: number): Promise<void> {
    const staleBefore = now - FRESH_BEATS * this.ctx.config.nodeHeartbeatMs;
    const latest = new Map<string, NodeMetrics>();
    for (const s of this.ctx.execution.sessions.values())
      if (s.metrics && s.lastSeenTs >= staleBefore) latest.set(s.nodeId, s.metrics);
    if (!latest.size) return;
    const rules = await listEnabledRules(this.db, [...NODE_RESOURCE_EVENTS]);
    if (!rules.length) return;
    const nodeIds = [...latest.keys()];
    const stored = await nodeStates(
      this.db,
      rules.map((r) => r.id),
      nodeIds,
    );
    const states = new Map(stored.map((s) => [`${s.rule_id} ${s.node_id}`, s]));
    for (const rule of rules)
      for (const nodeId of nodeIds) {
        await this.step(rule, nodeId, latest.get(nodeId)!, states.get(`${rule.id} ${nodeId}`), now);
      }
  }

  /** One rule on one node: begins, fires or ends the node's episode. */
  private async step(
    rule: RuleRow,
    nodeId: string,
    metrics: NodeMetrics,
    state: { above_since: number; fired: number } | undefined,
    now: number,
  ): Promise<void> {
    const metric = METRIC[rule.event as NodeResourceEvent];
    const value = metrics[metric];
    const threshold = rule.threshold ?? 100;
    if (!(value > threshold)) {
      if (state) await endNodeState(this.db, rule.id, nodeId);
      return;
    }
    if (!state) {
      await beginNodeState(this.db, rule.id, nodeId, now);
      // Another master may have begun it first: its time counts.
      const [row] = await nodeStates(this.db, [rule.id], [nodeId]);
      if (!row) return;
      state = row;
    }
    const aboveSince = Number(state.above_since);
    if (state.fired || now - aboveSince < rule.for_seconds * 1000) return;
    if (!(await claimNodeState(this.db, rule.id, nodeId, aboveSince))) return;
    const n = await nodeForRules(this.db, nodeId);
    await this.notifier.fire(rule, `node:${nodeId}`, {
      event: rule.event as NodeResourceEvent,
      ruleName: rule.name,
      node: { id: nodeId, name: n?.name ?? nodeId, ip: n?.ip ?? '' },
      usage: { metric, value, threshold, forSeconds: rule.for_seconds, sinceMs: now - aboveSince },
    });
  }
}

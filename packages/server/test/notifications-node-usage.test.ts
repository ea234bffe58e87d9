import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeMetrics } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { waitFor } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { WEBHOOK_SECRET, startChatEndpoints, type ChatEndpoints } from './support/notify-endpoints.ts';

// Node resource rules: usage above the threshold for the rule's duration fires once per episode; a reading at the
// threshold's near miss (89 % against 90 %) or a duration not yet reached fires nothing; the episode is in the
// store, so a restarted master does not fire it again; a reading back below ends it and the next episode fires.
const KEY = 'notify-usage-key';
const JOB = 'node-resource-alerts';
let m: TestMaster;
let chat: ChatEndpoints;

beforeAll(async () => {
  chat = await startChatEndpoints();
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, nodeHeartbeatMs: 200, webhookBackoffMs: 20 });
});
afterAll(async () => {
  await m?.close();
  await chat?.close();
});

/** Simulated nodes beating their readings to the master, as the node service does. */
class Fleet {
  private readonly nodes = new Map<string, { node: SimNode; metrics: Partial<NodeMetrics> }>();
  private readonly beat = setInterval(() => this.nodes.forEach((n) => n.node.heartbeat(n.metrics)), 100);

  /** A node joins, or comes back as the `earlier` one (same id, with the key it was given). */
  async join(name: string, metrics: Partial<NodeMetrics>, earlier?: SimNode): Promise<SimNode> {
    const node = new SimNode({ master: m.url, key: KEY, name, nodeId: earlier?.nodeId, ownKey: earlier?.ownKey });
    await node.connect();
    this.nodes.set(name, { node, metrics });
    return node;
  }

  set(name: string, metrics: Partial<NodeMetrics>): void {
    const n = this.nodes.get(name);
    if (n) n.metrics = metrics;
  }

  close(): void {
    clearInterval(this.beat);
    this.nodes.forEach((n) => n.node.close());
    this.nodes.clear();
  }
}

/** Resolves once the master's check ran `n` more times from now (so what it saw before was looked at). */
async function checksRun(n: number): Promise<void> {
  const runs = () => m.master.ctx.jobs.list().find((j) => j.name === JOB)?.runs ?? 0;
  const target = runs() + n;
  await waitFor(`${n} more runs of ${JOB}`, async () => runs() >= target);
}

/** Resolves once the check ran twice after `ms` from now: a duration of `ms` was up for what it saw. */
async function checksRunAfter(ms: number): Promise<void> {
  const from = Date.now();
  await waitFor(`${ms} ms to pass`, async () => Date.now() - from >= ms, ms + 20_000);
  await checksRun(2);
}

/** Resolves once the rule's episode on the node ended (its usage was seen back below). */
async function episodeEnded(ruleId: string, nodeId: string): Promise<void> {
  const row = () =>
    m.master.store.db
      .selectFrom('notify_node_states')
      .select('rule_id')
      .where('rule_id', '=', ruleId)
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
  await waitFor('the episode to end', async () => !(await row()));
}

const alerts = async (ruleId: string) =>
  (await m.api('GET', '/notifications/alerts', { query: { rule_id: ruleId } })).body.data as {
    subject: string;
    text: string;
    status: string;
  }[];

describe('node resource rules', () => {
  it('rejects a threshold above 100 %, and a duration on a rule that is not about node usage', async () => {
    const hook = await m.api('PUT', '/notifications/channels', {
      body: { name: 'check', kind: 'webhook', lang: 'en', config: { url: `${chat.base}/webhook` } },
    });
    const channel_ids = [hook.body.data._id];
    const over = await m.api('PUT', '/notifications/rules', {
      body: { name: 'x', event: 'node_disk_above', threshold: 101, channel_ids },
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/percentage up to 100/);
    const duration = await m.api('PUT', '/notifications/rules', {
      body: { name: 'x', event: 'node_offline', for_seconds: 60, channel_ids },
    });
    expect(duration.status).toBe(400);
    expect(duration.body.error).toMatch(/takes no duration/);
    const spiders = await m.api('PUT', '/notifications/rules', {
      body: { name: 'x', event: 'node_cpu_above', threshold: 90, tags: ['a'], channel_ids },
    });
    expect(spiders.status).toBe(400);
    expect((await m.api('GET', '/notifications/rules')).body.data).toHaveLength(0);
  });

  it('fires once per episode above the threshold for the duration, not for a near miss, not again after a restart', async () => {
    const fleet = new Fleet();
    try {
      const hook = await m.api('PUT', '/notifications/channels', {
        body: {
          name: 'hook',
          kind: 'webhook',
          lang: 'en',
          config: { url: `${chat.base}/webhook` },
          secrets: { secret: WEBHOOK_SECRET },
        },
      });
      const channel_ids = [hook.body.data._id];
      const rule = async (body: Record<string, unknown>) => {
        const r = await m.api('PUT', '/notifications/rules', { body: { ...body, channel_ids, dedupe_minutes: 0 } });
        expect(r.status, r.body.error).toBe(200);
        return r.body.data._id as string;
      };
      const cpu = await rule({ name: 'cpu hot', event: 'node_cpu_above', threshold: 90, for_seconds: 1 });
      const mem = await rule({ name: 'mem hot long', event: 'node_mem_above', threshold: 90, for_seconds: 3600 });
      const disk = await rule({ name: 'disk full', event: 'node_disk_above', threshold: 90, for_seconds: 0 });

      const hot = await fleet.join('hot', { cpu: 95, mem: 95, disk: 50 });
      await fleet.join('cool', { cpu: 89, mem: 95, disk: 90 });
      await chat.inbox.wait('webhook', 1);
      const first = await alerts(cpu);
      expect(first.map((a) => a.subject)).toEqual([`node:${hot.nodeId}`]);
      expect(first[0].text).toMatch(/CPU: 95% \(> 90%\)/);
      // Still above: the same episode does not fire again; 89 % and 90 % are not above 90 %; an hour is not up.
      await checksRun(3);
      expect(await alerts(cpu)).toHaveLength(1);
      expect(await alerts(mem)).toHaveLength(0);
      expect(await alerts(disk)).toHaveLength(0);

      // A restarted master carries on the stored episode: the node still at 95 % does not fire it again.
      fleet.close();
      await m.restart();
      const again = new Fleet();
      try {
        await again.join('hot', { cpu: 95, mem: 95, disk: 50 }, hot);
        await checksRunAfter(1500);
        expect(await alerts(cpu)).toHaveLength(1);

        // Back below ends the episode; above again is a new one, which fires.
        again.set('hot', { cpu: 40, mem: 95, disk: 50 });
        await episodeEnded(cpu, hot.nodeId);
        expect(await alerts(cpu)).toHaveLength(1);
        again.set('hot', { cpu: 97, mem: 95, disk: 50 });
        await chat.inbox.wait('webhook', 2);
        expect(await alerts(cpu)).toHaveLength(2);
        await checksRun(3);
        expect(chat.inbox.of('webhook')).toHaveLength(2);
        expect(await alerts(mem)).toHaveLength(0);
        expect(await alerts(disk)).toHaveLength(0);
      } finally {
        again.close();
      }
    } finally {
      fleet.close();
    }
  });
});

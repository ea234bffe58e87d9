import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { waitFor, waitTask } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { WEBHOOK_SECRET, startChatEndpoints, type ChatEndpoints } from './support/notify-endpoints.ts';

// A node-offline rule fires once for a node that stays away past the offline window and not for one that drops
// its connection and is back in time; the tasks a lost node was running turn abnormal, which a rule announces.
const KEY = 'notify-offline-key';
let chat: ChatEndpoints;
let peer: TestMaster;

beforeAll(async () => {
  chat = await startChatEndpoints();
  peer = await startTestMaster({ embeddedNode: false, nodeKey: KEY, nodeOfflineMs: 3000, webhookBackoffMs: 20 });
});
afterAll(async () => {
  await peer?.close();
  await chat?.close();
});

describe('node offline', () => {
  it('fires once for a node that stays away, not for one back in time; its running task turns abnormal', async () => {
    const peer = await startTestMaster({
      embeddedNode: false,
      nodeKey: KEY,
      nodeOfflineMs: 3000,
      webhookBackoffMs: 20,
    });
    const nodes: SimNode[] = [];
    const beat = setInterval(() => nodes.forEach((n) => n.heartbeat()), 200);
    try {
      /** A node joins, or comes back as the `earlier` one (same id, with the key it was given). */
      const join = async (name: string, earlier?: SimNode) => {
        const n = new SimNode({
          master: peer.url,
          key: KEY,
          name,
          nodeId: earlier?.nodeId,
          ownKey: earlier?.ownKey,
          onAssign: (s, t) => s.started(t.taskId),
        });
        await n.connect();
        nodes.push(n);
        return n;
      };
      const hook = await peer.api('PUT', '/notifications/channels', {
        body: {
          name: 'hook',
          kind: 'webhook',
          lang: 'en',
          config: { url: `${chat.base}/webhook` },
          secrets: { secret: WEBHOOK_SECRET },
        },
      });
      const channel = [hook.body.data._id];
      const offline = await peer.api('PUT', '/notifications/rules', {
        body: { name: 'gone', event: 'node_offline', channel_ids: channel },
      });
      const abnormal = await peer.api('PUT', '/notifications/rules', {
        body: { name: 'lost', event: 'task_abnormal', channel_ids: channel },
      });
      const b = await join('leaves');
      const spider = (await peer.api('PUT', '/spiders', { body: { name: 'on-b', cmd: 'echo x', type: 'customized' } }))
        .body.data._id;
      const [taskId] = (await peer.api('PUT', '/tasks', { body: { spider_id: spider, run_type: 'random' } })).body.data;
      await waitTask(peer, taskId, ['running']);
      const a = await join('comes-back');
      // A drops its connection and is back at once; B stays away.
      a.close();
      nodes.splice(nodes.indexOf(a), 1);
      await join('comes-back', a);
      b.close();
      nodes.splice(nodes.indexOf(b), 1);
      const alerts = async (rule: string) =>
        (await peer.api('GET', '/notifications/alerts', { query: { rule_id: rule } })).body.data as {
          subject: string;
          status: string;
        }[];
      const gone = await waitFor('node offline alert', async () => {
        const list = await alerts(offline.body.data._id);
        return list.some((x) => x.status === 'delivered') && list;
      });
      expect(gone.map((x) => x.subject)).toEqual([`node:${b.nodeId}`]);
      await waitTask(peer, taskId, ['abnormal']);
      const lost = await waitFor('abnormal alert', async () => {
        const list = await alerts(abnormal.body.data._id);
        return list.some((x) => x.status === 'delivered') && list;
      });
      expect(lost).toHaveLength(1);
    } finally {
      clearInterval(beat);
      nodes.forEach((n) => n.close());
    }
  });
});

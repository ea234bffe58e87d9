import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskChange } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitTask } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { subscribeEvents, taskChanges, type SseReader } from './support/sse-reader.ts';

// The console's live feed tells why a pending task waits, and tells it again when the fleet changes the reason.
let m: TestMaster;
let user: string;
let userSpider: string;
let adminSpider: string;
const KEY = 'waiting-feed-key';
let sim: SimNode | undefined;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY });
  user = await m.createUser('waiting-feed-user');
  userSpider = await makeSpider(m, 'waiting-feed-own', 'echo own', {}, {}, user);
  adminSpider = await makeSpider(m, 'waiting-feed-admin', 'echo admin');
});
afterAll(async () => {
  sim?.close();
  await m?.close();
});

const subscribe = (token: string) => subscribeEvents(m.url, token);

/** Reads until the stream tells `taskId` with `status` and `reason`; returns that change. */
async function heard(stream: SseReader, taskId: string, status: string, reason?: string): Promise<TaskChange> {
  const match = (c: TaskChange) => c.taskId === taskId && c.status === status && c.waiting_reason === reason;
  const e = await stream.until((ev) => taskChanges(ev).some(match));
  return taskChanges(e).find(match)!;
}

describe('the live task feed says why a pending task waits', () => {
  it('carries the reason with the pending change and again when a node changes it', async () => {
    const own = await subscribe(user);
    const admin = await subscribe(m.adminToken);
    // No node at all: nothing that may run it is online.
    const [userTask] = await runSpider(m, userSpider, {}, user);
    expect(await heard(own, userTask, 'pending', 'no_node_online')).toMatchObject({ spiderId: userSpider });

    // A node without a sandbox comes online: it takes no normal user's task, and the user is told so at once.
    sim = new SimNode({
      master: m.url,
      key: KEY,
      name: 'waiting-feed-bare',
      maxRunners: 1,
      onAssign: (n, t) => n.started(t.taskId),
    });
    await sim.connect();
    await heard(own, userTask, 'pending', 'closed_to_user');
    await heard(admin, userTask, 'pending', 'closed_to_user');
    // The reason the feed told is the one the task's own page shows; once cancelled it has none.
    expect((await m.api('GET', `/tasks/${userTask}`, { token: user })).body.data.waiting_reason).toBe('closed_to_user');
    expect((await m.api('POST', `/tasks/${userTask}/cancel`, { token: user })).status).toBe(200);
    await heard(own, userTask, 'cancelled', undefined);

    // An administrator's task fills the node's one slot; the next one waits for a slot.
    const [first] = await runSpider(m, adminSpider);
    await waitTask(m, first, ['running']);
    const [second] = await runSpider(m, adminSpider);
    await heard(admin, second, 'pending', 'slots_busy');
    // Its running change carries no reason; the normal user heard nothing of the administrator's private tasks.
    sim.finished(first);
    await heard(admin, second, 'running', undefined);
    expect(own.events.flatMap(taskChanges).filter((c) => c.spiderId === adminSpider)).toEqual([]);
    await own.close();
    await admin.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskChange } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitFor } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { subscribeEvents, taskChanges, type SseReader } from './support/sse-reader.ts';
import { TASK_FEED_INTERVAL_MS } from '../src/features/execution/task-feed.ts';

// The console's task feed: task status changes gathered per interval, each console hearing only what it may read.
let m: TestMaster;
let viewer: string;
let hidden: string;
let shown: string;
const KEY = 'task-feed-key';
const sims: SimNode[] = [];

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY });
  viewer = await m.createUser('task-feed-viewer');
  // Each simulated node starts and finishes an assigned task at once: three status changes per task.
  for (let i = 0; i < 2; i++) {
    const sim = new SimNode({
      master: m.url,
      key: KEY,
      name: `task-feed-${i}`,
      maxRunners: 50,
      onAssign: (n, t) => {
        n.started(t.taskId);
        n.finished(t.taskId);
      },
    });
    sims.push(sim);
  }
  await Promise.all(sims.map((s) => s.connect()));
  await waitFor('every node listed', async () => (await m.api('GET', '/nodes')).body.data?.length === sims.length);
  hidden = await makeSpider(m, 'feed-private', 'echo private');
  shown = await makeSpider(m, 'feed-public', 'echo public', {}, { is_public: true });
});
afterAll(async () => {
  for (const s of sims) s.close();
  await m?.close();
});

const subscribe = (token: string) => subscribeEvents(m.url, token);

/** Each task's latest status as a stream heard it, event after event. */
function latest(stream: SseReader): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of stream.events) for (const c of taskChanges(e)) out.set(c.taskId, c.status);
  return out;
}

/** Reads until every one of `ids` was last heard with `status`. */
async function untilAll(stream: SseReader, ids: readonly string[], status: string): Promise<void> {
  let done = false;
  await stream.until(() => {
    done ||= ids.every((id) => latest(stream).get(id) === status);
    return done;
  });
}

async function runMany(spiderId: string, count: number): Promise<string[]> {
  const ids = await Promise.all(Array.from({ length: count }, () => runSpider(m, spiderId)));
  return ids.flat();
}

/** The task events of a stream come one interval apart at least, and name each task once. */
function expectOnePerInterval(stream: SseReader): void {
  const batches = stream.named('tasks');
  for (let i = 1; i < batches.length; i++) {
    const gap = Date.parse(batches[i].data.ts) - Date.parse(batches[i - 1].data.ts);
    expect(gap).toBeGreaterThanOrEqual(TASK_FEED_INTERVAL_MS - 20);
  }
  for (const e of batches) expect(new Set(taskChanges(e).map((c) => c.taskId)).size).toBe(taskChanges(e).length);
  expect(stream.named('task.status')).toEqual([]);
}

describe('GET /api/events task feed', () => {
  it('gathers many status changes into at most one tasks event per interval, each task with its latest status', async () => {
    const admin = await subscribe(m.adminToken);
    const other = await subscribe(m.adminToken);
    const ids = await runMany(hidden, 40);
    await untilAll(admin, ids, 'finished');
    await untilAll(other, ids, 'finished');
    // 120 changes (pending, running, finished of 40 tasks), far fewer events, none closer than an interval.
    for (const s of [admin, other]) {
      expectOnePerInterval(s);
      expect(s.named('tasks').length).toBeLessThan(ids.length);
    }
    const first = taskChanges(admin.named('tasks')[0])[0];
    expect(first).toMatchObject({ spiderId: hidden, scheduleId: null, parentId: null, error: '' });
    expect(sims.map((s) => s.nodeId)).toContain(latestEntry(admin, ids[0]).nodeId);
    await admin.close();
    await other.close();
  });

  it('tells a normal user only of tasks of spiders they may read, within the same intervals', async () => {
    const admin = await subscribe(m.adminToken);
    const normal = await subscribe(viewer);
    const own = await makeSpider(m, 'feed-own', 'echo own', {}, {}, viewer);
    // Tasks of all three spiders change in the same intervals.
    const [h, s, o] = await Promise.all([runMany(hidden, 10), runMany(shown, 10), runMany(own, 5)]);
    await untilAll(admin, [...h, ...s, ...o], 'finished');
    // A task run after every hidden task finished: once the viewer hears it, any hidden change would have come.
    const [last] = await runSpider(m, shown);
    await untilAll(normal, [...s, ...o, last], 'finished');
    const heard = latest(normal);
    expect(h.filter((id) => heard.has(id))).toEqual([]);
    expect(normal.named('tasks').every((e) => taskChanges(e).every((c) => c.spiderId !== hidden))).toBe(true);
    expect(h.every((id) => latest(admin).get(id) === 'finished')).toBe(true);
    expectOnePerInterval(normal);
    await admin.close();
    await normal.close();
  });

  it('loses no task across intervals: every task of several waves ends with its final status, deletions too', async () => {
    const admin = await subscribe(m.adminToken);
    const normal = await subscribe(viewer);
    const all: string[] = [];
    // Waves started as the previous one is heard, so the changes spread over several intervals.
    for (let wave = 0; wave < 4; wave++) {
      const ids = await runMany(shown, 25);
      all.push(...ids);
      await admin.until((e) => taskChanges(e).some((c) => ids.includes(c.taskId)));
    }
    await untilAll(admin, all, 'finished');
    await untilAll(normal, all, 'finished');
    expect(admin.named('tasks').length).toBeGreaterThan(1);
    const gone = all.slice(0, 30);
    expect((await m.api('DELETE', '/tasks', { body: { ids: gone } })).body.data.deleted).toBe(gone.length);
    await untilAll(admin, gone, 'deleted');
    await untilAll(normal, gone, 'deleted');
    for (const s of [admin, normal]) {
      const final = latest(s);
      expect(all.filter((id) => final.get(id) !== (gone.includes(id) ? 'deleted' : 'finished'))).toEqual([]);
      expectOnePerInterval(s);
    }
    await admin.close();
    await normal.close();
  });

  it('gathers nothing while no console listens', async () => {
    const bus = m.master.ctx.events;
    await waitFor('earlier streams closed', async () => bus.listenerCount('tasks.changed') === 0);
    const unheard = await runMany(shown, 5);
    await waitFor('unheard tasks finished', async () => {
      const r = await m.api('GET', '/tasks', { query: { spider_id: shown, status: 'finished', page_size: 100 } });
      const done = new Set((r.body.data as { _id: string }[]).map((t) => t._id));
      return unheard.every((id) => done.has(id));
    });
    const stream = await subscribe(m.adminToken);
    const [sentinel] = await runSpider(m, shown);
    await untilAll(stream, [sentinel], 'finished');
    const heard = latest(stream);
    expect(unheard.filter((id) => heard.has(id))).toEqual([]);
    await stream.close();
  });
});

function latestEntry(stream: SseReader, taskId: string): TaskChange {
  const all = stream.named('tasks').flatMap(taskChanges);
  return all.filter((c) => c.taskId === taskId).at(-1)!;
}

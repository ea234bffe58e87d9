import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';
import { SseReader } from './support/sse-reader.ts';

/** Task changes pushed to the console: coalesced per task, filtered by who may read the spider, with ?token=. */
let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1);
});
afterAll(async () => {
  await m?.close();
});

/** Reads `tasks` events until `taskId` is heard with `status`; returns the statuses heard of it, one per event. */
async function latestStatusUntil(stream: SseReader, taskId: string, status: string): Promise<string[]> {
  const heard = (e: { event: string; data: any }) =>
    e.event === 'tasks'
      ? (e.data.tasks as { taskId: string; status: string }[]).filter((c) => c.taskId === taskId)
      : [];
  await stream.until((e) => heard(e).some((c) => c.status === status));
  const per = stream.events.map(heard).filter((l) => l.length);
  // A task is in an event once, with its latest status.
  for (const l of per) expect(l).toHaveLength(1);
  return per.map((l) => l[0].status);
}

describe('task events on the embedded node', () => {
  it('pushes task status changes on GET /api/events, each task once per event with its latest status', async () => {
    const res = await fetch(`${m.url}/api/events`, { headers: { authorization: m.adminToken } });
    expect(res.status).toBe(200);
    const stream = new SseReader(res);
    const id = await makeSpider(m, 'sh-events', 'echo ev');
    const [t] = await runSpider(m, id);
    const latest = await latestStatusUntil(stream, t, 'finished');
    await stream.close();
    // Statuses in the order they happened, changes within one interval heard as the latest alone.
    const order = ['pending', 'running', 'finished'];
    const steps = latest.map((s) => order.indexOf(s));
    expect(
      steps.every((v, i) => v >= 0 && (i === 0 || v > steps[i - 1])),
      latest.join(','),
    ).toBe(true);
    expect(latest.at(-1)).toBe('finished');
    expect(stream.named('task.status')).toEqual([]);
  });

  it('tells a normal user on GET /api/events only of tasks of spiders they may read', async () => {
    const normal = await m.createUser('events-viewer');
    const res = await fetch(`${m.url}/api/events`, { headers: { authorization: normal } });
    expect(res.status).toBe(200);
    const stream = new SseReader(res);
    const hidden = await makeSpider(m, 'sh-events-private', 'echo private');
    const shown = await makeSpider(m, 'sh-events-public', 'echo public', {}, { is_public: true });
    const [h] = await runSpider(m, hidden);
    await waitTask(m, h, ['finished']);
    const [p] = await runSpider(m, shown);
    // The hidden task's changes all came before the shown one's: had they been sent, they were read by now.
    await latestStatusUntil(stream, p, 'finished');
    await stream.close();
    expect(JSON.stringify(stream.events)).not.toContain(h);
  });

  it('streams status and log lines over SSE with ?token=', async () => {
    const id = await makeSpider(m, 'sh-stream', "sh -c 'for i in 1 2 3; do echo line$i; sleep 0.2; done'");
    const [t] = await runSpider(m, id);
    expect((await fetch(`${m.url}/api/tasks/${t}/stream`)).status).toBe(401);
    const res = await fetch(`${m.url}/api/tasks/${t}/stream?from=0&token=${encodeURIComponent(m.adminToken)}`);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const dec = new TextDecoder();
    while (!/"status":"finished"/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += dec.decode(value);
    }
    await reader.cancel();
    expect(text).toContain('event: log');
    for (const l of ['line1', 'line2', 'line3']) expect(text).toContain(`"msg":"${l}"`);
    expect(text).toMatch(/event: status\ndata: .*"status":"finished"/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitTask } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';

// A task's finish time is when its output is stored: the node reports the end once its spool is shipped, which
// may be long after the process exited; the duration counts until then.
const KEY = 'finish-time-key';
let m: TestMaster;
let sim: SimNode;
let spider = '';

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY });
  sim = new SimNode({ master: m.url, key: KEY, name: 'finish-time-node', onAssign: (n, t) => n.started(t.taskId) });
  await sim.connect();
  spider = await makeSpider(m, 'finish-time', 'echo x');
});
afterAll(async () => {
  sim?.close();
  await m?.close();
});

describe('finish time', () => {
  it('is when the last output was stored, not when the process ended', async () => {
    const [taskId] = await runSpider(m, spider);
    const running = await waitTask(m, taskId, ['running']);
    const processEnd = Date.parse(running.start_ts) + 5;
    // The process ended at once; its lines are shipped (and stored) afterwards.
    expect(await sim.shipLogs(taskId, 0, ['one', 'two', 'three'])).toBe(3);
    const stored = Date.now();
    sim.finished(taskId, 3, 0, processEnd);
    const task = await waitTask(m, taskId, ['finished']);
    expect(task.log_count).toBe(3);
    expect(Date.parse(task.finish_ts)).toBeGreaterThanOrEqual(stored);
    expect(task.runtime_duration).toBe(Date.parse(task.finish_ts) - Date.parse(task.start_ts));

    // The same word again (its acknowledgement was lost) keeps the finish time.
    sim.finished(taskId, 3, 0, processEnd);
    const [again] = await runSpider(m, spider);
    await waitTask(m, again, ['running']);
    expect((await m.api('GET', `/tasks/${taskId}`)).body.data.finish_ts).toBe(task.finish_ts);
  });
});

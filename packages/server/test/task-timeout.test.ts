import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, pidAlive, pidsWithArg, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';

let m: TestMaster;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1);
});
afterAll(async () => {
  await m?.close();
});

/**
 * A spider whose process starts a child that ignores TERM (only the KILL after the grace period ends it), then
 * sleeps itself: both carry the token named by the first argument in their command lines.
 */
const TREE_SH = `python3 -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)' "child-$1" &
echo "child started"
exec python3 -c 'import time; time.sleep(600)' "main-$1"
`;

const taskCount = async () => (await m.api('GET', '/tasks', { query: { page_size: 1 } })).body.total as number;

/** Runs the tree spider until both processes run; returns the task and its processes' host pids. */
async function startTree(spiderId: string, body: Record<string, unknown> = {}) {
  const token = `tree-${randomBytes(6).toString('hex')}`;
  const [taskId] = await runSpider(m, spiderId, { param: token, ...body });
  await waitTask(m, taskId, ['running']);
  await waitFor('child started', async () => (await allLog(m, taskId)).some((l) => l.msg === 'child started'));
  const pids = await waitFor('both processes on the host', async () => {
    const found = pidsWithArg(`main-${token}`).concat(pidsWithArg(`child-${token}`));
    return found.length === 2 ? found : undefined;
  });
  return { taskId, token, pids };
}

describe('maximum run time', () => {
  it("a spider's timeout stops the whole process tree and the task ends as timed out", async () => {
    const spiderId = await makeSpider(
      m,
      'tree',
      'sh tree.sh',
      { 'tree.sh': TREE_SH },
      { limits: { timeout_seconds: 2 } },
    );
    const spider = (await m.api('GET', `/spiders/${spiderId}`)).body.data;
    expect(spider.limits.timeout_seconds).toBe(2);
    const { taskId, token, pids } = await startTree(spiderId);
    const t = await waitTask(m, taskId, ['error', 'finished', 'cancelled', 'abnormal'], 60_000);
    expect(t.status).toBe('error');
    expect(t.error).toMatch(/^timed out/);
    expect(t.end_reason).toEqual({ kind: 'timed_out' });
    expect(pids.some(pidAlive)).toBe(false);
    expect(pidsWithArg(token)).toEqual([]);
    expect((await allLog(m, taskId)).some((l) => /^timed out.*stopping its processes/.test(l.msg))).toBe(true);
    const listed = await m.api('GET', '/tasks', { query: { status: 'error', spider_id: spiderId } });
    expect(listed.body.data.find((x: { _id: string }) => x._id === taskId)?.end_reason).toEqual({ kind: 'timed_out' });
  }, 90_000);

  it("a run's own timeout replaces the spider's; a task that ends in time finishes", async () => {
    const spiderId = await makeSpider(m, 'tree-run', 'sh tree.sh', { 'tree.sh': TREE_SH });
    const { taskId, pids } = await startTree(spiderId, { timeout: 1 });
    expect((await m.api('GET', `/tasks/${taskId}`)).body.data.timeout_seconds).toBe(1);
    const t = await waitTask(m, taskId, ['error', 'finished', 'cancelled', 'abnormal'], 60_000);
    expect(t.end_reason).toEqual({ kind: 'timed_out' });
    expect(pids.some(pidAlive)).toBe(false);

    const quick = await makeSpider(m, 'quick', 'echo done', {}, { limits: { timeout_seconds: 1 } });
    const [ok] = await runSpider(m, quick, { timeout: 60 });
    const done = await waitTask(m, ok, ['error', 'finished', 'cancelled', 'abnormal'], 60_000);
    expect(done.status).toBe('finished');
    expect(done.end_reason).toBeUndefined();
  }, 90_000);

  it('refuses a timeout that is negative, fractional, too long or not a number, and creates nothing', async () => {
    const spiderId = await makeSpider(m, 'tree-bad', 'sh tree.sh', { 'tree.sh': TREE_SH });
    const before = await taskCount();
    for (const timeout of [-1, 1.5, 'soon', 31 * 24 * 3600]) {
      const put = await m.api('PUT', '/tasks', { body: { spider_id: spiderId, param: 'x', timeout } });
      expect(put.status, JSON.stringify(put.body)).toBe(400);
      expect(put.body.error).toMatch(/timeout/);
      const many = await m.api('POST', '/spiders-run', {
        body: { task_params: [{ spider_id: spiderId, param: 'x', timeout }] },
      });
      expect(many.status).toBe(400);
      expect(many.body.error).toMatch(/timeout/);
      const edit = await m.api('POST', `/spiders/${spiderId}`, { body: { limits: { timeout_seconds: timeout } } });
      expect(edit.status).toBe(400);
      expect(edit.body.error).toMatch(/timeout_seconds/);
    }
    expect(await taskCount()).toBe(before);
    expect((await m.api('GET', `/spiders/${spiderId}`)).body.data.limits.timeout_seconds).toBe(0);
  });
});

import type { TaskInfo } from '@crawldeck/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';

// A task's processes are held to its limits by control groups: a memory hog is ended by the kernel and a fork bomb
// is refused new processes, each task says which limit ended it, and the node runs the next task as before.
const asRoot = process.getuid?.() === 0;
const LIMITS = { memoryMb: 64, cpuPercent: 50, maxProcesses: 32 };

let m: TestMaster;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true, taskLimits: LIMITS });
  await waitNodes(m, 1, 30_000);
}, 60_000);

afterAll(async () => {
  await m?.close();
});

async function runOnce(name: string, cmd: string, files: Record<string, string> = {}, extra = {}) {
  const id = await makeSpider(m, name, cmd, files, extra);
  const [taskId] = await runSpider(m, id);
  return waitTask(m, taskId, ['finished', 'error', 'abnormal'], 120_000);
}

describe.runIf(asRoot)('task limits', () => {
  it('a memory hog ends with the reason "out of memory"', async () => {
    const hog = 'a = []\nwhile True:\n    a.append(bytearray(1 << 20))\n';
    const t = await runOnce('limits-hog', '/usr/bin/python3 hog.py', { 'hog.py': hog });
    expect(t.status).toBe('error');
    expect(t.error).toBe('out of memory: the task used its limit of 64 MiB');
    expect(t.end_reason).toEqual({ kind: 'out_of_memory' });
    const listed = (await m.api('GET', '/tasks', { query: { status: 'error' } })).body.data as TaskInfo[];
    expect(listed.find((x) => x._id === t._id)?.end_reason).toEqual({ kind: 'out_of_memory' });
  }, 150_000);

  it('a spider’s own limit overrides the default, and 0 falls back to it', async () => {
    const hog = 'a = []\nwhile True:\n    a.append(bytearray(1 << 20))\n';
    const t = await runOnce('limits-own', '/usr/bin/python3 hog.py', { 'hog.py': hog }, { limits: { memory_mb: 40 } });
    expect(t.error).toBe('out of memory: the task used its limit of 40 MiB');
    const spider = (await m.api('GET', `/spiders/${t.spider_id}`)).body.data;
    expect(spider.limits).toEqual({ memory_mb: 40, cpu_percent: 0, max_processes: 0, timeout_seconds: 0 });
    // Limits not named keep their value; 0 gives the default back.
    expect((await m.api('POST', `/spiders/${t.spider_id}`, { body: { limits: { max_processes: 16 } } })).status).toBe(
      200,
    );
    expect((await m.api('GET', `/spiders/${t.spider_id}`)).body.data.limits).toEqual({
      memory_mb: 40,
      cpu_percent: 0,
      max_processes: 16,
      timeout_seconds: 0,
    });
    await m.api('POST', `/spiders/${t.spider_id}`, { body: { limits: { memory_mb: 0 } } });
    const [again] = await runSpider(m, t.spider_id);
    const t2 = await waitTask(m, again, ['finished', 'error', 'abnormal'], 120_000);
    expect(t2.error).toBe('out of memory: the task used its limit of 64 MiB');
    // Out of range is refused and changes nothing.
    const bad = await m.api('POST', `/spiders/${t.spider_id}`, { body: { limits: { memory_mb: -1 } } });
    expect(bad.status).toBe(400);
    expect((await m.api('GET', `/spiders/${t.spider_id}`)).body.data.limits.max_processes).toBe(16);
  }, 300_000);

  it('a fork bomb ends with the reason "process limit"', async () => {
    // Starts processes until the kernel refuses one, then fails as a spider would.
    const bomb = `import os, sys, time
kids = []
try:
    for i in range(1000):
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        kids.append(pid)
except OSError as e:
    print('fork refused after %d: %s' % (len(kids), e), flush=True)
    sys.exit(1)
`;
    const t = await runOnce('limits-bomb', '/usr/bin/python3 bomb.py', { 'bomb.py': bomb });
    expect(t.status).toBe('error');
    expect(t.error).toBe('process limit: the task reached its limit of 32 processes at once');
    expect(t.end_reason).toEqual({ kind: 'process_limit' });
  }, 150_000);

  it('the node stays healthy: the next task runs and finishes', async () => {
    const t = await runOnce('limits-after', 'echo still-here');
    expect(t.status, t.error).toBe('finished');
    const nodes = (await m.api('GET', '/nodes')).body.data as { status: string }[];
    expect(nodes.every((n) => n.status === 'online')).toBe(true);
  }, 150_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitTask } from './tasks.helpers.ts';

/** Spider output is untrusted: bytes the store cannot hold must not stall a task's log. */
let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
});
afterAll(async () => {
  await m?.close();
});

describe('spider output with a NUL byte', () => {
  it('is stored with U+FFFD in its place, and the lines after it arrive', async () => {
    const id = await makeSpider(m, 'prints-nul', "printf 'before\\n'; printf 'a\\000b\\n'; printf 'after\\n'");
    const [taskId] = await runSpider(m, id);
    await waitTask(m, taskId, ['finished']);
    expect((await allLog(m, taskId)).map((l) => l.msg)).toEqual(['before', 'a\uFFFDb', 'after']);
  });
});

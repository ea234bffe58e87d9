import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { countRows, finishedTasks, purged } from './spider-purge.helpers.ts';
import { makeSpider } from './tasks.helpers.ts';

let m: TestMaster;
beforeAll(async () => {
  // The purger's periodic look never comes in this file (the master's repeating timers are held): a purge
  // starts only when something announces a deletion, or at the master's start.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
  vi.useRealTimers();
});

describe("a user's deletion", () => {
  it("starts the purge of the user's spiders at once", async () => {
    const token = await m.createUser('purge-owner');
    const spider = await makeSpider(m, 'purge-owned', 'echo x', {}, {}, token);
    const other = await makeSpider(m, 'purge-other', 'echo x');
    const tasks = await finishedTasks(m, spider, 10);
    const kept = await finishedTasks(m, other, 3);
    const users = await m.api('GET', '/users', { query: { page_size: 100 } });
    const owner = users.body.data.find((u: { username: string }) => u.username === 'purge-owner');
    const announced = new Promise<string>((resolve) => m.master.ctx.events.once('user.deleted', resolve));

    expect((await m.api('DELETE', `/users/${owner._id}`)).status).toBe(200);
    expect(await announced).toBe(owner._id);
    expect((await m.api('GET', `/spiders/${spider}`)).status).toBe(404);
    await purged(m, spider, tasks);
    expect(await countRows(m, 'tasks', 'spider_id', other)).toBe(kept.length);
    expect(await countRows(m, 'task_logs', 'task_id', kept[0])).toBe(2);
  });
});

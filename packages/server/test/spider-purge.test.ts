import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestMaster, type TestMaster } from './harness.ts';
import { insertRow } from './seed-rows.ts';
import { countRows, finishedTasks, purged } from './spider-purge.helpers.ts';
import { makeSpider } from './tasks.helpers.ts';
import { PURGE_ROUND_MIN_ROWS } from '../src/features/spiders/purge-rounds.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
});

const db = () => m.master.store.db;
const count = (table: 'tasks' | 'task_logs' | 'results', column: string, value: string) =>
  countRows(m, table, column, value);
const purgeRows = (spiderId: string) => countRows(m, 'spider_purges', 'spider_id', spiderId);

describe('deleting a spider with many tasks', () => {
  it('answers at once, hides the spider and its tasks, and deletes them in the background', async () => {
    const gone = await makeSpider(m, 'purge-gone', 'echo x');
    const kept = await makeSpider(m, 'purge-kept', 'echo x');
    const goneTasks = await finishedTasks(m, gone, 2 * PURGE_ROUND_MIN_ROWS + 7);
    const keptTasks = await finishedTasks(m, kept, 5);

    expect((await m.api('DELETE', `/spiders/${gone}`)).status).toBe(200);
    // Gone for readers at once, whatever the purge has done so far.
    expect((await m.api('GET', `/spiders/${gone}`)).status).toBe(404);
    const list = await m.api('GET', '/tasks', { query: { page_size: 1000 } });
    expect(list.body.data.some((t: { spider_id: string }) => t.spider_id === gone)).toBe(false);
    expect((await m.api('GET', `/tasks/${goneTasks[0]}`)).status).toBe(404);
    expect((await m.api('PUT', '/tasks', { body: { spider_id: gone, run_type: 'random' } })).status).toBe(404);

    await purged(m, gone, goneTasks);
    expect(await count('tasks', 'spider_id', kept)).toBe(keptTasks.length);
    expect(await count('task_logs', 'task_id', keptTasks[0])).toBe(2);
    expect((await m.api('GET', '/tasks', { query: { spider_id: kept } })).body.total).toBe(keptTasks.length);
  });

  it('is refused while a task of the spider is pending or running', async () => {
    const busy = await makeSpider(m, 'purge-busy', 'echo x');
    await insertRow(db(), 'tasks', { spider_id: busy, status: 'running', run_type: 'random' });
    expect((await m.api('DELETE', `/spiders/${busy}`)).status).toBe(409);
    expect((await m.api('GET', `/spiders/${busy}`)).status).toBe(200);
  });

  it('goes on after a restart when the master stopped before the purge ended', async () => {
    const spider = await makeSpider(m, 'purge-restart', 'echo x');
    const tasks = await finishedTasks(m, spider, PURGE_ROUND_MIN_ROWS + 3);
    // What a master killed right after the deletion leaves: the spider row gone, the purge recorded by the store,
    // every task still there. The running master is not told (no deletion event), so only a start purges it.
    await sql`DELETE FROM spiders WHERE id = ${spider}`.execute(db());
    expect(await purgeRows(spider)).toBe(1);
    expect(await count('tasks', 'spider_id', spider)).toBe(tasks.length);
    await m.restart();
    await purged(m, spider, tasks);
  });
});

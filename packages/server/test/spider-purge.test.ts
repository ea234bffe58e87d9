import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { newId } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';
import { makeSpider, waitFor } from './tasks.helpers.ts';
import { PURGE_ROUND_MIN_ROWS } from '../src/features/spiders/purge-rounds.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
});

const db = () => m.master.store.db;

/** Finished tasks of a spider, each with `lines` log lines and one item; their ids. */
async function finishedTasks(spiderId: string, count: number, lines = 2): Promise<string[]> {
  const now = Date.now() - 60_000;
  const ids = Array.from({ length: count }, () => newId());
  const base = { spider_id: spiderId, node_id: newId(), status: 'finished', run_type: 'random', type: 'spider' };
  await insertRows(
    db(),
    'tasks',
    ids.map((id, i) => ({ ...base, id, create_ts: now + i, log_lines: lines })),
  );
  const logs = ids.flatMap((id) =>
    Array.from({ length: lines }, (_, k) => ({ task_id: id, line_no: k + 1, msg: `line ${k}`, is_error: 0 })),
  );
  await insertRows(db(), 'task_logs', logs);
  for (const id of ids.slice(0, 3))
    await insertRow(db(), 'results', { collection: 'c', task_id: id, spider_id: spiderId, data: '{}', create_ts: now });
  return ids;
}

async function count(table: 'tasks' | 'task_logs' | 'results', column: string, value: string): Promise<number> {
  const r = await sql<{
    n: number;
  }>`SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${value}`.execute(db());
  return Number(r.rows[0].n);
}

async function purgeRows(spiderId: string): Promise<number> {
  const r = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM spider_purges WHERE spider_id = ${spiderId}`.execute(
    db(),
  );
  return Number(r.rows[0].n);
}

/** The deleted spider's tasks, their log lines and items are all gone, and so is its purge record. */
const purged = (spiderId: string, taskIds: string[]) =>
  waitFor(`spider ${spiderId} purged`, async () => {
    if ((await count('tasks', 'spider_id', spiderId)) || (await purgeRows(spiderId))) return false;
    for (const id of taskIds.slice(0, 3))
      if ((await count('task_logs', 'task_id', id)) || (await count('results', 'task_id', id))) return false;
    return true;
  });

describe('deleting a spider with many tasks', () => {
  it('answers at once, hides the spider and its tasks, and deletes them in the background', async () => {
    const gone = await makeSpider(m, 'purge-gone', 'echo x');
    const kept = await makeSpider(m, 'purge-kept', 'echo x');
    const goneTasks = await finishedTasks(gone, 2 * PURGE_ROUND_MIN_ROWS + 7);
    const keptTasks = await finishedTasks(kept, 5);

    expect((await m.api('DELETE', `/spiders/${gone}`)).status).toBe(200);
    // Gone for readers at once, whatever the purge has done so far.
    expect((await m.api('GET', `/spiders/${gone}`)).status).toBe(404);
    const list = await m.api('GET', '/tasks', { query: { page_size: 1000 } });
    expect(list.body.data.some((t: { spider_id: string }) => t.spider_id === gone)).toBe(false);
    expect((await m.api('GET', `/tasks/${goneTasks[0]}`)).status).toBe(404);
    expect((await m.api('PUT', '/tasks', { body: { spider_id: gone, run_type: 'random' } })).status).toBe(404);

    await purged(gone, goneTasks);
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
    const tasks = await finishedTasks(spider, PURGE_ROUND_MIN_ROWS + 3);
    // What a master killed right after the deletion leaves: the spider row gone, the purge recorded by the store,
    // every task still there. The running master is not told (no deletion event), so only a start purges it.
    await sql`DELETE FROM spiders WHERE id = ${spider}`.execute(db());
    expect(await purgeRows(spider)).toBe(1);
    expect(await count('tasks', 'spider_id', spider)).toBe(tasks.length);
    await m.restart();
    await purged(spider, tasks);
  });

  it('also purges the spiders of a deleted user', async () => {
    const token = await m.createUser('purge-owner');
    const spider = await makeSpider(m, 'purge-owned', 'echo x', {}, {}, token);
    const tasks = await finishedTasks(spider, 10);
    const users = await m.api('GET', '/users', { query: { page_size: 100 } });
    const owner = users.body.data.find((u: { username: string }) => u.username === 'purge-owner');
    expect((await m.api('DELETE', `/users/${owner._id}`)).status).toBe(200);
    expect((await m.api('GET', `/spiders/${spider}`)).status).toBe(404);
    await purged(spider, tasks);
  });
});

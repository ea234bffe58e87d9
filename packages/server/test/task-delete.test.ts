import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';
import { makeSpider } from './tasks.helpers.ts';
import { TASK_PURGE_CHUNK } from '../src/features/tasks/tasks.store.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
});

const LINES = TASK_PURGE_CHUNK * 6 + 7;
const ITEMS = TASK_PURGE_CHUNK * 2 + 3;

/** A finished task holding LINES log lines and ITEMS items, written straight into the store. */
async function bigTask(spiderId: string): Promise<string> {
  const db = m.master.store.db;
  const id = newId();
  await insertRow(db, 'tasks', { id, spider_id: spiderId, status: 'finished', log_lines: LINES, result_count: ITEMS });
  const lines = Array.from({ length: LINES }, (_, i) => ({
    task_id: id,
    line_no: i + 1,
    msg: `line ${i + 1}`,
    is_error: 0,
  }));
  await insertRows(db, 'task_logs', lines, 2000);
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    collection: 'big',
    task_id: id,
    spider_id: spiderId,
    data: JSON.stringify({ n: i }),
    create_ts: Date.now(),
  }));
  await insertRows(db, 'results', items, 2000);
  return id;
}

async function count(table: 'task_logs' | 'results', taskId: string): Promise<number> {
  const r = await m.master.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('task_id', '=', taskId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('deleting a task with many lines and items', () => {
  it('removes every line and item and answers other requests while it does', async () => {
    const spiderId = await makeSpider(m, 'big-task', 'echo big');
    const keep = await bigTask(spiderId);
    const gone = await bigTask(spiderId);
    const order: string[] = [];
    const deletion = m.api('DELETE', `/tasks/${gone}`).then((r) => {
      order.push('delete');
      return r;
    });
    // Sent while the deletion works through its chunks: answered between them, before the deletion ends.
    const version = (async () => {
      // Waits (a turn of the event loop at a time) until the deletion has started or ended.
      while (!order.length && (await count('task_logs', gone)) === LINES) await nextTurn();
      const r = await m.api('GET', '/version', { token: null });
      order.push('version');
      return r;
    })();
    const [del, ver] = await Promise.all([deletion, version]);
    expect(del.status).toBe(200);
    expect(ver.status).toBe(200);
    expect(order).toEqual(['version', 'delete']);
    expect(await count('task_logs', gone)).toBe(0);
    expect(await count('results', gone)).toBe(0);
    expect((await m.api('GET', `/tasks/${gone}`)).status).toBe(404);
    // The other task keeps everything.
    expect(await count('task_logs', keep)).toBe(LINES);
    expect(await count('results', keep)).toBe(ITEMS);
  });
});

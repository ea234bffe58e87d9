import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import { newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow } from './seed-rows.ts';
import { makeSpider } from './tasks.helpers.ts';
import { spiderHasLiveTask, spiderLiveTaskQuery } from '../src/features/tasks/tasks.store.ts';
import { earlierResults, earlierResultsQuery } from '../src/features/suspicious/suspicious.store.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
});

/** SQLite's plan of a statement (its planner has no statistics: the plan does not depend on the rows). */
async function plan(db: Kysely<any>, q: Compilable): Promise<string> {
  const c = q.compile();
  const rows = (await db.executeQuery(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters]))).rows;
  return rows.map((r: any) => String(r.detail)).join('\n');
}

/** Tasks of one spider: `status` and result count, one millisecond apart from `t0`. */
async function tasksOf(spiderId: string, t0: number, rows: Array<[status: string, results: number]>) {
  const ids: string[] = [];
  for (const [i, [status, results]] of rows.entries()) {
    const id = newId();
    ids.push(id);
    await insertRow(m.master.store.db, 'tasks', {
      id,
      spider_id: spiderId,
      status,
      run_type: 'random',
      result_count: results,
      create_ts: t0 + i,
    });
  }
  return ids;
}

describe("a spider's tasks in one status", () => {
  it('are the live ones and the earlier runs of the same spider', async () => {
    const db = m.master.store.db;
    const busy = await makeSpider(m, 'plan-busy', 'echo x');
    const idle = await makeSpider(m, 'plan-idle', 'echo x');
    const t0 = Date.now() - 10_000;
    const busyIds = await tasksOf(busy, t0, [
      ['finished', 5],
      ['error', 0],
      ['finished', 7],
      ['running', 0],
      ['finished', 9],
    ]);
    await tasksOf(idle, t0, [
      ['finished', 100],
      ['cancelled', 0],
    ]);

    expect(await spiderHasLiveTask(db, busy)).toBe(true);
    expect(await spiderHasLiveTask(db, idle)).toBe(false);
    // The runs before the last one, newest first; the other spider's runs and other statuses are not among them.
    expect(await earlierResults(db, busy, busyIds[4], t0 + 4)).toEqual([7, 5]);
    expect(await earlierResults(db, busy, busyIds[2], t0 + 2)).toEqual([5]);
  });

  it.runIf(ENGINE === 'sqlite')('are read through the (spider_id, status) index, not the spider history', async () => {
    const db = m.master.store.db;
    const spider = newId();
    expect(await plan(db, spiderLiveTaskQuery(db, spider))).toContain(
      'tasks_spider_status_idx (spider_id=? AND status=?)',
    );
    expect(await plan(db, earlierResultsQuery(db, spider, newId(), Date.now()))).toContain(
      'tasks_spider_status_idx (spider_id=? AND status=? AND create_ts<?)',
    );
  });

  it('list through the API by spider and status, newest first', async () => {
    const spider = await makeSpider(m, 'plan-list', 'echo x');
    const ids = await tasksOf(spider, Date.now() - 5_000, [
      ['finished', 1],
      ['error', 0],
      ['finished', 2],
    ]);
    const r = await m.api('GET', `/tasks?spider_id=${spider}&status=finished&page_size=10`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((t: { _id: string }) => t._id)).toEqual([ids[2], ids[0]]);
    expect(r.body.total).toBe(2);
  });
});

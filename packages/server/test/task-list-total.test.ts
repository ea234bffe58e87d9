import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { LIST_COUNT_CAP, newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';
import { makeSpider } from './tasks.helpers.ts';
import { keptTotalQuery } from '../src/features/tasks/tasks.store.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
});

const db = () => m.master.store.db;

/** Tasks of a spider in the given statuses, a millisecond apart. */
async function tasksOf(spiderId: string, statuses: string[]): Promise<void> {
  const t0 = Date.now() - 60_000;
  const rows = statuses.map((status, i) => ({
    id: newId(),
    spider_id: spiderId,
    node_id: newId(),
    status,
    run_type: 'random',
    create_ts: t0 + i,
  }));
  await insertRows(db(), 'tasks', rows);
}

async function total(query = ''): Promise<{ total: number; capped: boolean }> {
  const r = await m.api('GET', `/tasks?page_size=5${query}`);
  expect(r.status).toBe(200);
  return { total: r.body.total!, capped: (r.body as unknown as { total_capped: boolean }).total_capped };
}

describe('the total of the task list', () => {
  it.runIf(ENGINE === 'sqlite')('reads the kept per-status counts on SQLite, not the tasks table', async () => {
    // Counting the list walks up to the cap's worth of an index of the tasks table at each page.
    for (const statuses of [undefined, ['finished', 'error']]) {
      const c = keptTotalQuery(statuses).compile(db());
      const plan = (await db().executeQuery(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters])))
        .rows as { detail: string }[];
      const details = plan.map((r) => r.detail).join('\n');
      expect(details).toContain('task_status_counts');
      expect(details).not.toMatch(/\btasks\b/);
    }
    // And the list takes its total from there: a count changed behind the triggers' back shows in the answer.
    const before = await total('&status=running');
    await sql`INSERT INTO task_status_counts (status, n) VALUES ('running', 5)
      ON CONFLICT (status) DO UPDATE SET n = n + 5`.execute(db());
    try {
      expect(await total('&status=running')).toEqual({ total: before.total + 5, capped: false });
    } finally {
      await sql`UPDATE task_status_counts SET n = n - 5 WHERE status = 'running'`.execute(db());
    }
  });

  it('counts every task or the tasks in some statuses, without the tasks of a spider being purged', async () => {
    const kept = await makeSpider(m, 'total-kept', 'echo x');
    const going = await makeSpider(m, 'total-going', 'echo x');
    await tasksOf(kept, ['finished', 'finished', 'error', 'running']);
    await tasksOf(going, ['finished', 'error', 'finished']);

    expect(await total()).toEqual({ total: 7, capped: false });
    expect(await total('&status=finished')).toEqual({ total: 4, capped: false });
    expect(await total('&status=finished,error')).toEqual({ total: 6, capped: false });
    expect(await total(`&spider_id=${going}`)).toEqual({ total: 3, capped: false });

    // A spider recorded as being purged: its tasks leave the lists at once, whether or not the purge removed them.
    await insertRow(db(), 'spider_purges', { spider_id: going, create_ts: Date.now() });
    expect(await total()).toEqual({ total: 4, capped: false });
    expect(await total('&status=finished')).toEqual({ total: 2, capped: false });
  });

  // Goes on from the spiders above, one of them being purged.
  it.runIf(ENGINE === 'sqlite')('takes the total from the kept counts while a purge is recorded', async () => {
    // A count changed behind the triggers' back shows, less the purged spider's own kept counts.
    await sql`UPDATE task_status_counts SET n = n + 5 WHERE status = 'finished'`.execute(db());
    try {
      expect(await total('&status=finished')).toEqual({ total: 7, capped: false });
    } finally {
      await sql`UPDATE task_status_counts SET n = n - 5 WHERE status = 'finished'`.execute(db());
    }
  });

  it('stops at the cap', async () => {
    const many = await makeSpider(m, 'total-many', 'echo x');
    await tasksOf(
      many,
      Array.from({ length: LIST_COUNT_CAP + 1 }, () => 'cancelled'),
    );
    expect(await total('&status=cancelled')).toEqual({ total: LIST_COUNT_CAP, capped: true });
    expect(await total()).toEqual({ total: LIST_COUNT_CAP, capped: true });
  });
});

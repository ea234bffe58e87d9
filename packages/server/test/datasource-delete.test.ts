import { errorText } from '@crawldeck/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { addDataSource, generatorSpider, openTarget, type TargetDb } from './datasources.helpers.ts';
import { runSpider, waitFor, waitTask } from './tasks.helpers.ts';

// A data source whose connection is the only way to past tasks' results is not deleted from under them: the
// delete is refused with the number of those tasks, and their results stay readable until the tasks go.
let m: TestMaster;
let target: TargetDb;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  target = await openTarget('postgres');
}, 60_000);
afterAll(async () => {
  await m?.close();
  await target?.drop();
});

describe('deleting a data source that past tasks used', () => {
  it('is refused with the count of tasks, keeps their results readable, and goes once the tasks are deleted', async () => {
    const dsId = await addDataSource(m, target);
    const spider = await generatorSpider(m, 'ds-delete-past', dsId, {}, 'past_items');
    const tasks = [
      ...(await runSpider(m, spider, { param: '3 mixed' })),
      ...(await runSpider(m, spider, { param: '2 mixed' })),
    ];
    for (const t of tasks) expect(await waitTask(m, t, ['finished'], 120_000)).toMatchObject({ status: 'finished' });
    // No spider points at it any more; the two tasks' results live only there.
    const away = await m.api('POST', `/spiders/${spider}/data-source`, {
      body: { data_source_id: '', result_table: '' },
    });
    expect(away.status).toBe(200);

    const refused = await m.api('DELETE', `/data-sources/${dsId}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'datasource.used_by_tasks', params: { count: 2 } });
    expect(refused.body.error).toBe(errorText('datasource.used_by_tasks', { count: 2 }));
    expect((await m.api('GET', '/data-sources')).body.data.some((d: { _id: string }) => d._id === dsId)).toBe(true);
    const page = await m.api('GET', `/tasks/${tasks[0]}/results`, { query: { page_num: 1, page_size: 10 } });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(3);
    expect((await m.api('GET', `/tasks/${tasks[1]}/data-source`)).body.data).toMatchObject({ data_source_id: dsId });

    // One task deleted: one left.
    expect((await m.api('DELETE', '/tasks', { body: { ids: [tasks[0]] } })).status).toBe(200);
    await waitFor('one task counted', async () => {
      const r = await m.api('DELETE', `/data-sources/${dsId}`);
      return r.status === 409 && (r.body as { params?: { count?: number } }).params?.count === 1;
    });
    // Both deleted: the data source goes.
    expect((await m.api('DELETE', '/tasks', { body: { ids: [tasks[1]] } })).status).toBe(200);
    await waitFor(
      'the data source deleted',
      async () => (await m.api('DELETE', `/data-sources/${dsId}`)).status === 200,
    );
    expect((await m.api('GET', '/data-sources')).body.data.some((d: { _id: string }) => d._id === dsId)).toBe(false);
  }, 240_000);
});

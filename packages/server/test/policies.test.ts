import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';

let m: TestMaster;
let alice: string;
let bob: string;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1);
  alice = await m.createUser('alice-policy');
  bob = await m.createUser('bob-policy');
});
afterAll(async () => {
  await m?.close();
});

const ids = (r: { body: { data: { _id: string }[] } }) => r.body.data.map((x) => x._id);

describe('policies: a private spider stays private in every route that hangs off it', () => {
  let spiderId: string;
  let scheduleId: string;
  let taskId: string;
  let fireTaskId: string;
  let nodeId: string;

  beforeAll(async () => {
    spiderId = await makeSpider(m, 'alice-private', 'node main.js', { 'main.js': 'console.log("hi")' }, {}, alice);
    const s = await m.api('PUT', '/schedules', {
      token: alice,
      body: { name: 'alice-nightly', cron: '0 0 3 * * *', spider_id: spiderId, timezone: 'UTC', param: 'secret-param' },
    });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    scheduleId = s.body.data._id;
    [taskId] = await runSpider(m, spiderId, {}, alice);
    await waitTask(m, taskId, ['finished']);
    const fire = await m.api('POST', `/schedules/${scheduleId}/run`, { token: alice });
    expect(fire.status, JSON.stringify(fire.body)).toBe(200);
    [fireTaskId] = fire.body.data.task_ids;
    await waitTask(m, fireTaskId, ['finished']);
    await waitFor(
      'a deploy of the spider',
      async () => (await m.api('GET', '/deploys', { token: alice, query: { spider_id: spiderId } })).body.total,
    );
    nodeId = (await m.api('GET', `/tasks/${taskId}`, { token: alice })).body.data.node_id;
  });

  it("answers another user's private spider, its tasks and schedules exactly as unknown ids (404)", async () => {
    const unknown = 'ffffffffffffffffffffffff';
    const asks: Array<[string, (id: string) => string, Record<string, unknown>?]> = [
      ['GET', (id) => `/spiders/${id}`],
      ['POST', (id) => `/spiders/${id}`, { description: 'taken over' }],
      ['DELETE', (id) => `/spiders/${id}`],
      ['GET', (id) => `/spiders/${id}/stats`],
      ['GET', (id) => `/spiders/${id}/file/tree`],
      ['POST', (id) => `/tasks/${id}/cancel`],
      ['PUT', () => '/tasks', { spider_id: spiderId }],
      ['GET', (id) => `/schedules/${id}`],
      ['GET', (id) => `/schedules/${id}/tasks`],
      ['GET', (id) => `/schedules/${id}/fires`],
      ['POST', (id) => `/schedules/${id}/run`],
      ['POST', (id) => `/schedules/${id}/disable`],
      ['GET', (id) => `/tasks/${id}`],
      ['GET', (id) => `/tasks/${id}/log`],
      ['GET', (id) => `/tasks/${id}/results`],
      ['GET', (id) => `/tasks/${id}/results/download`],
      ['POST', (id) => `/tasks/${id}/restart`],
      ['DELETE', (id) => `/tasks/${id}`],
    ];
    const real = (route: (id: string) => string) => {
      const r = route(spiderId);
      if (r.startsWith('/schedules/')) return route(scheduleId);
      if (r.startsWith('/tasks/')) return route(taskId);
      return r;
    };
    for (const [method, route, body] of asks) {
      const mine = await m.api(method, real(route), { token: bob, body });
      const bogus = await m.api(method, route(unknown), {
        token: bob,
        body: body?.spider_id ? { spider_id: unknown } : body,
      });
      expect(mine.status, `${method} ${real(route)}`).toBe(404);
      expect(mine.body, `${method} ${real(route)}`).toEqual(bogus.body);
      expect(JSON.stringify(mine.body)).not.toContain('secret-param');
    }
    // Nothing was changed or removed on the way.
    expect((await m.api('GET', `/spiders/${spiderId}`, { token: alice })).body.data.description).not.toBe('taken over');
    expect((await m.api('GET', `/tasks/${taskId}`, { token: alice })).status).toBe(200);
    // A batch naming the task leaves it out, as it would an unknown id.
    const batch = await m.api('DELETE', '/tasks', { token: bob, body: { ids: [taskId] } });
    expect(batch.status).toBe(200);
    expect((await m.api('GET', `/tasks/${taskId}`, { token: alice })).status).toBe(200);
  });

  it('filters the lists of another user in SQL, totals included', async () => {
    const all = await m.api('GET', '/schedules', { token: bob });
    expect(all.status).toBe(200);
    expect(ids(all)).not.toContain(scheduleId);
    expect(all.body.total).toBe(all.body.data.length);
    const byQuery = await m.api('GET', '/schedules', { token: bob, query: { spider_id: spiderId } });
    expect(byQuery.body).toMatchObject({ data: [], total: 0 });
    const bySpider = await m.api('GET', `/spiders/${spiderId}/schedules`, { token: bob });
    expect(bySpider.body).toMatchObject({ data: [], total: 0 });
    const deploys = await m.api('GET', '/deploys', { token: bob, query: { spider_id: spiderId } });
    expect(deploys.body).toMatchObject({ data: [], total: 0 });
    const allDeploys = await m.api('GET', '/deploys', { token: bob });
    expect(allDeploys.body.data.map((d: { spider_id: string }) => d.spider_id)).not.toContain(spiderId);
    expect(allDeploys.body.total).toBe(allDeploys.body.data.length);
    const tasks = await m.api('GET', '/tasks', { token: bob, query: { spider_id: spiderId } });
    expect(tasks.body).toMatchObject({ data: [], total: 0 });
    const nodeTasks = await m.api('GET', `/nodes/${nodeId}/tasks`, { token: bob });
    expect(ids(nodeTasks)).not.toContain(taskId);
    expect((await m.api('GET', `/spiders/${spiderId}/tasks`, { token: bob })).body.total).toBe(0);
    expect((await m.api('GET', `/spiders/${spiderId}/stats`, { token: bob })).status).toBe(404);
  });

  it('still shows everything to the owner and to an administrator', async () => {
    for (const token of [alice, m.adminToken]) {
      expect((await m.api('GET', `/schedules/${scheduleId}`, { token })).body.data).toMatchObject({
        param: 'secret-param',
        spider_name: 'alice-private',
      });
      expect(ids(await m.api('GET', '/schedules', { token }))).toContain(scheduleId);
      expect(ids(await m.api('GET', `/spiders/${spiderId}/schedules`, { token }))).toEqual([scheduleId]);
      expect(ids(await m.api('GET', `/schedules/${scheduleId}/tasks`, { token }))).toEqual([fireTaskId]);
      const fires = await m.api('GET', `/schedules/${scheduleId}/fires`, { token });
      expect(fires.body.data[0].task_ids).toEqual([fireTaskId]);
      expect(
        (await m.api('GET', '/deploys', { token, query: { spider_id: spiderId } })).body.total,
      ).toBeGreaterThanOrEqual(1);
      expect(ids(await m.api('GET', `/nodes/${nodeId}/tasks`, { token }))).toEqual(
        expect.arrayContaining([taskId, fireTaskId]),
      );
    }
  });

  it('lets another user read the schedules of a public spider but not change them', async () => {
    const pub = await makeSpider(m, 'alice-public', 'echo ok', {}, { is_public: true }, alice);
    const s = await m.api('PUT', '/schedules', {
      token: alice,
      body: { name: 'pub', cron: '0 0 4 * * *', spider_id: pub, timezone: 'UTC' },
    });
    expect((await m.api('GET', `/schedules/${s.body.data._id}`, { token: bob })).status).toBe(200);
    expect(ids(await m.api('GET', `/spiders/${pub}/schedules`, { token: bob }))).toEqual([s.body.data._id]);
    expect((await m.api('POST', `/schedules/${s.body.data._id}/disable`, { token: bob })).status).toBe(403);
  });
});

describe('policies: schedules follow the spider policy when they fire', () => {
  it('stops creating tasks for a schedule whose owner lost access to the spider (made private)', async () => {
    const pub = await makeSpider(m, 'alice-was-public', 'echo ok', {}, { is_public: true }, alice);
    const s = await m.api('PUT', '/schedules', {
      token: bob,
      body: { name: 'bob-on-alice', cron: '0 0 5 * * *', spider_id: pub, timezone: 'UTC' },
    });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    const [bobTask] = await runSpider(m, pub, {}, bob);
    expect((await m.api('GET', `/tasks/${bobTask}`, { token: bob })).body.data.spider).toMatchObject({
      name: 'alice-was-public',
    });
    expect((await m.api('POST', `/spiders/${pub}`, { token: alice, body: { is_public: false } })).status).toBe(200);
    // Bob still sees the task he started, but no longer the details of the now private spider.
    const task = await m.api('GET', `/tasks/${bobTask}`, { token: bob });
    expect(task.status).toBe(200);
    expect(task.body.data.spider).toBeNull();
    const run = await m.api('POST', `/schedules/${s.body.data._id}/run`, { token: bob });
    expect(run.status).toBe(400);
    expect(run.body.error).toMatch(/may no longer run its spider/);
    const tasks = await m.master.store.db
      .selectFrom('tasks')
      .select('id')
      .where('schedule_id', '=', s.body.data._id)
      .execute();
    expect(tasks).toEqual([]);
    // The owner of the spider still runs it.
    const own = await m.api('PUT', '/schedules', {
      token: alice,
      body: { name: 'alice-own', cron: '0 0 5 * * *', spider_id: pub, timezone: 'UTC' },
    });
    expect((await m.api('POST', `/schedules/${own.body.data._id}/run`, { token: alice })).status).toBe(200);
  });
});

describe('policies: result collections are owned', () => {
  const js = `const { saveItems } = require('crawldeck');
saveItems([{ url: 'u1', owner: process.argv[2] }, { url: 'u2', owner: process.argv[2] }]);`;
  let aliceRows: { data: string }[];

  const rowsOf = (col: string) =>
    m.master.store.db
      .selectFrom('results')
      .select(['data', 'task_id'])
      .where('collection', '=', col)
      .orderBy('id')
      .execute();

  beforeAll(async () => {
    const a = await makeSpider(
      m,
      'alice-shop',
      'node main.js',
      { 'main.js': js },
      { col: 'alice_col', is_dedup: true, dedup_field: 'url', dedup_method: 'overwrite' },
      alice,
    );
    const [t] = await runSpider(m, a, { param: 'alice' }, alice);
    expect((await waitTask(m, t, ['finished', 'error'])).status).toBe('finished');
    aliceRows = await rowsOf('alice_col');
    expect(aliceRows.map((r) => JSON.parse(r.data).owner)).toEqual(['alice', 'alice']);
  });

  it("refuses a spider that would write into, dedupe against or overwrite another user's collection", async () => {
    const body = {
      name: 'bob-shop',
      cmd: 'node main.js',
      col: 'alice_col',
      is_dedup: true,
      dedup_field: 'url',
      dedup_method: 'overwrite',
    };
    const create = await m.api('PUT', '/spiders', { token: bob, body });
    expect(create.status).toBe(403);
    expect(create.body.error).toMatch(/results collection "alice_col" belongs to another user/);
    const bobSpider = await makeSpider(
      m,
      'bob-shop',
      'node main.js',
      { 'main.js': js },
      { is_dedup: true, dedup_field: 'url', dedup_method: 'overwrite' },
      bob,
    );
    const edit = await m.api('POST', `/spiders/${bobSpider}`, { token: bob, body: { col: 'alice_col' } });
    expect(edit.status).toBe(403);
    expect((await m.api('GET', `/spiders/${bobSpider}`, { token: bob })).body.data.col).not.toBe('alice_col');
    expect(await rowsOf('alice_col')).toEqual(aliceRows);
  });

  it('refuses to run a spider that already points at another user’s collection, leaving the rows intact', async () => {
    // A spider saved before collections were owned: written straight into the store, as old data would be.
    const bobSpider = await makeSpider(
      m,
      'bob-legacy',
      'node main.js',
      { 'main.js': js },
      { is_dedup: true, dedup_field: 'url', dedup_method: 'overwrite' },
      bob,
    );
    await m.master.store.db.updateTable('spiders').set({ col: 'alice_col' }).where('id', '=', bobSpider).execute();
    const run = await m.api('PUT', '/tasks', {
      token: bob,
      body: { spider_id: bobSpider, run_type: 'random', param: 'bob' },
    });
    expect(run.status).toBe(403);
    expect(run.body.error).toMatch(/belongs to another user/);
    const tasks = await m.master.store.db.selectFrom('tasks').select('id').where('spider_id', '=', bobSpider).execute();
    expect(tasks).toEqual([]);
    expect(await rowsOf('alice_col')).toEqual(aliceRows);
  });

  it('gives a same-named spider of another user its own default collection', async () => {
    const a = await m.api('PUT', '/spiders', { token: alice, body: { name: 'same-name', cmd: 'echo' } });
    const b = await m.api('PUT', '/spiders', { token: bob, body: { name: 'same-name', cmd: 'echo' } });
    expect(a.body.data.col).toBe('results_same-name');
    expect(b.status).toBe(200);
    expect(b.body.data.col).toBe(`results_same-name_${b.body.data._id}`);
  });

  it('lets the owner reuse the collection and an administrator share it', async () => {
    const again = await m.api('PUT', '/spiders', {
      token: alice,
      body: { name: 'alice-shop-2', cmd: 'echo', col: 'alice_col' },
    });
    expect(again.status).toBe(200);
    const admin = await m.api('PUT', '/spiders', { body: { name: 'admin-reader', cmd: 'echo', col: 'alice_col' } });
    expect(admin.status).toBe(200);
  });
});

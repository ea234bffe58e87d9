import { newId } from '@crawldeck/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider } from './tasks.helpers.ts';

let m: TestMaster;
let user = '';
let userSpider = '';
let adminSpider = '';
const workerId = newId();

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
  user = await m.createUser('waiting-user');
  userSpider = await makeSpider(m, 'users-spider', 'python3 main.py', {}, {}, user);
  adminSpider = await makeSpider(m, 'admins-spider', 'python3 main.py');
  // A worker that registered once and is offline now: the store's record of it, as the master keeps it.
  const now = Date.now();
  await m.master.store.db
    .insertInto('nodes')
    .values({
      id: workerId,
      name: 'away',
      description: '',
      type: 'worker',
      status: 'offline',
      enabled: 1,
      max_runners: 2,
      running: 0,
      ip: '10.0.0.9',
      system_info: JSON.stringify({ sandbox: { isolated: true } }),
      metrics: '{}',
      last_seen_ts: now - 60_000,
      create_ts: now - 120_000,
      update_ts: now - 60_000,
      offline_ts: now - 50_000,
    })
    .execute();
});
afterAll(async () => {
  await m?.close();
});

const setWorker = (values: { status?: 'online' | 'offline' | 'unavailable'; enabled?: number; system_info?: string }) =>
  m.master.store.db.updateTable('nodes').set(values).where('id', '=', workerId).execute();

async function reason(taskId: string, token?: string) {
  const one = await m.api('GET', `/tasks/${taskId}`, { token });
  const list = await m.api('GET', '/tasks', { token, query: { page_size: 100 } });
  const listed = (list.body.data as { _id: string; waiting_reason?: string | null }[]).find((t) => t._id === taskId);
  expect(listed?.waiting_reason).toBe(one.body.data.waiting_reason);
  return one.body.data.waiting_reason as string | null | undefined;
}

describe('a pending task says why it waits', () => {
  it("a normal user's task while only an offline worker is registered: no node that may run it is online", async () => {
    const [taskId] = await runSpider(m, userSpider, {}, user);
    const task = (await m.api('GET', `/tasks/${taskId}`, { token: user })).body.data;
    expect(task.status).toBe('pending');
    expect(task.node_name).toBeUndefined();
    expect(await reason(taskId, user)).toBe('no_node_online');
    // Once it no longer waits, it has no reason.
    expect((await m.api('POST', `/tasks/${taskId}/cancel`, { token: user })).status).toBe(200);
    const cancelled = (await m.api('GET', `/tasks/${taskId}`, { token: user })).body.data;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.waiting_reason ?? null).toBeNull();
  });

  it('tells busy, disabled and closed nodes apart, by the same rules dispatch follows', async () => {
    const [userTask] = await runSpider(m, userSpider, {}, user);
    const [adminTask] = await runSpider(m, adminSpider);
    const [pinned] = await runSpider(m, adminSpider, { run_type: 'selected-nodes', node_ids: [workerId] });

    // Every slot of the worker is taken.
    await setWorker({ status: 'unavailable' });
    expect(await reason(userTask, user)).toBe('slots_busy');
    // An administrator turned it off.
    await setWorker({ status: 'unavailable', enabled: 0 });
    expect(await reason(userTask, user)).toBe('nodes_disabled');
    // Online, but without a sandbox: closed to normal users' tasks, open to an administrator's.
    await setWorker({ status: 'online', enabled: 1, system_info: JSON.stringify({ sandbox: { isolated: false } }) });
    expect(await reason(userTask, user)).toBe('closed_to_user');
    expect(await reason(adminTask)).toBe('queued');
    expect(await reason(pinned)).toBe('queued');
    await setWorker({ status: 'offline', system_info: JSON.stringify({ sandbox: { isolated: true } }) });
    expect(await reason(adminTask)).toBe('no_node_online');
    expect(await reason(pinned)).toBe('no_node_online');
  });
});

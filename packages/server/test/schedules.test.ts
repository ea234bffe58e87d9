import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { expectOneTaskPerFire, fires, scheduleApi, settled, sleep, tasksOf, until } from './schedules.helpers.ts';

// Fast lock take-over for the multi-master test; read when each master starts.
process.env.CRAWLDECK_SCHEDULER_LOCK_RETRY_SECONDS = '0.5';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
});
afterAll(async () => {
  await m?.close();
});
const { spider, schedule } = scheduleApi(() => m);

describe('schedules: validation', () => {
  it('refuses invalid cron forms with a clear message', async () => {
    const sid = await spider('validate');
    const bad: [string, RegExp][] = [
      ['0 0 * * *', /expected 6 fields.*got 5/],
      ['0 0 0 * * * 2030', /expected 6 fields.*got 7/],
      ['60 * * * * *', /second field "60" is out of range/],
      ['0 60 * * * *', /minute field/],
      ['0 0 24 * * *', /hour field/],
      ['0 0 0 32 * *', /day of month field/],
      ['0 0 0 * 13 *', /month field/],
      ['0 0 0 * * 9', /day of week field/],
      ['hello world', /expected 6 fields/],
      ['a b c d e f', /Invalid cron expression/],
      ['0 0 0 31 2 *', /never fires/],
      ['', /cron expression is required/],
    ];
    for (const [cron, msg] of bad) {
      const r = await m.api('PUT', '/schedules', { body: { name: 'x', cron, spider_id: sid } });
      expect(r.status, cron).toBe(400);
      expect(r.body.error, cron).toMatch(msg);
    }
    const badTz = await m.api('PUT', '/schedules', {
      body: { name: 'x', cron: '0 0 1 * * *', spider_id: sid, timezone: 'Mars/Olympus' },
    });
    expect(badTz.status).toBe(400);
    expect(badTz.body.error).toMatch(/time zone/);
    const tooMany = await m.api('PUT', '/schedules', {
      body: { name: 'x', cron: '0 0 1 * * *', spider_id: sid, retries: 6 },
    });
    expect(tooMany.status).toBe(400);
    const noNodes = await m.api('PUT', '/schedules', {
      body: { name: 'x', cron: '0 0 1 * * *', spider_id: sid, run_type: 'selected-nodes', node_ids: [] },
    });
    expect(noNodes.status).toBe(400);
    const noSpider = await m.api('PUT', '/schedules', {
      body: { name: 'x', cron: '0 0 1 * * *', spider_id: 'f'.repeat(24) },
    });
    expect(noSpider.status).toBe(404);
    expect(await m.master.store.db.selectFrom('schedules').selectAll().execute()).toHaveLength(0);
    // The check endpoint gives the same answer and the next run times.
    const check = await m.api('GET', '/schedules/cron', { query: { cron: '*/10 * * * * *', timezone: 'UTC', n: 3 } });
    expect(check.body.data.valid).toBe(true);
    expect(check.body.data.next).toHaveLength(3);
    const checkBad = await m.api('GET', '/schedules/cron', { query: { cron: '0 0 * * *' } });
    expect(checkBad.body.data).toMatchObject({ valid: false, error: expect.stringMatching(/got 5/) });
  });
});

describe('schedules: CRUD', () => {
  it('creates, lists with the spider name and next run, edits, toggles and deletes', async () => {
    const sid = await spider('crud-spider');
    const s = await schedule({
      name: 'nightly',
      cron: '0 30 2 * * *',
      spider_id: sid,
      timezone: 'Asia/Shanghai',
      param: '-a x=1',
      retries: 2,
      description: 'd',
    });
    expect(s).toMatchObject({
      name: 'nightly',
      cron: '0 30 2 * * *',
      spider_name: 'crud-spider',
      enabled: true,
      status: 'running',
      error: '',
      retries: 2,
      timezone: 'Asia/Shanghai',
      run_type: 'random',
      node_ids: [],
    });
    // 02:30 in Shanghai is 18:30 UTC.
    expect(new Date(s.next_run_ts).getUTCHours()).toBe(18);
    expect(new Date(s.next_run_ts).getUTCMinutes()).toBe(30);

    const list = await m.api('GET', '/schedules');
    expect(list.status).toBe(200);
    expect(list.body.data.find((x: any) => x._id === s._id)).toMatchObject({
      spider_name: 'crud-spider',
      next_run_ts: s.next_run_ts,
    });
    const bySpider = await m.api('GET', `/spiders/${sid}/schedules`);
    expect(bySpider.body.data.map((x: any) => x._id)).toEqual([s._id]);

    const upd = await m.api('POST', `/schedules/${s._id}`, { body: { cron: '0 0 3 * * *', name: 'renamed' } });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ name: 'renamed', cron: '0 0 3 * * *', param: '-a x=1' });
    const badUpd = await m.api('POST', `/schedules/${s._id}`, { body: { cron: '* * * *' } });
    expect(badUpd.status).toBe(400);

    const off = await m.api('POST', `/schedules/${s._id}/disable`);
    expect(off.body.data).toMatchObject({ enabled: false, status: 'stop', next_run_ts: null });
    const on = await m.api('POST', `/schedules/${s._id}/enable`);
    expect(on.body.data).toMatchObject({ enabled: true, status: 'running' });
    expect(on.body.data.next_run_ts).toBeTruthy();

    // To another user the schedule of an administrator's private spider is an unknown id.
    const eve = await m.createUser('eve-sched');
    expect((await m.api('GET', '/schedules', { token: eve })).status).toBe(200);
    expect((await m.api('POST', `/schedules/${s._id}/disable`, { token: eve })).status).toBe(404);
    expect((await m.api('DELETE', `/schedules/${s._id}`, { token: eve })).status).toBe(404);
    // ...nor schedule a spider that is private to another user.
    const privateSched = await m.api('PUT', '/schedules', {
      token: eve,
      body: { name: 'x', cron: '0 0 1 * * *', spider_id: sid },
    });
    expect(privateSched.status).toBe(404);

    expect((await m.api('DELETE', `/schedules/${s._id}`)).status).toBe(200);
    expect((await m.api('GET', `/schedules/${s._id}`)).status).toBe(404);
  });
});

describe('schedules: firing', () => {
  it('fires every second and creates tasks that carry schedule_id; disabling stops it', async () => {
    const sid = await spider('every-second');
    const s = await schedule({ cron: '* * * * * *', spider_id: sid });
    await until(async () => (await fires(m, s._id)).length >= 3);
    await m.api('POST', `/schedules/${s._id}/disable`);
    await settled(m); // a fire already in progress finishes
    const fs = await expectOneTaskPerFire(m, s._id);
    const count = fs.length;
    for (const f of fs) expect(f.kind).toBe('cron');
    // Fire times are whole seconds, consecutive.
    for (let i = 1; i < fs.length; i++) expect(Number(fs[i].fire_ts) - Number(fs[i - 1].fire_ts)).toBe(1000);
    const hist = await m.api('GET', `/schedules/${s._id}/tasks`);
    expect(hist.body.total).toBe(count);
    expect(hist.body.data[0].schedule_id).toBe(s._id);
    const viaTasks = await m.api('GET', '/tasks', { query: { schedule_id: s._id } });
    if (viaTasks.status === 200) expect(viaTasks.body.total).toBe(count);
    await sleep(1500);
    expect((await fires(m, s._id)).length).toBe(count);
    const got = await m.api('GET', `/schedules/${s._id}`);
    expect(got.body.data.last_run_ts).toBe(new Date(Number(fs[fs.length - 1].fire_ts)).toISOString());
  });

  it('run now creates tasks at once, whatever the cron', async () => {
    const sid = await spider('run-now');
    const s = await schedule({ cron: '0 0 0 1 1 *', spider_id: sid, enabled: false });
    const r = await m.api('POST', `/schedules/${s._id}/run`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.task_ids).toHaveLength(1);
    const tasks = await tasksOf(m, s._id);
    expect(tasks.map((t) => t.id)).toEqual(r.body.data.task_ids);
    expect((await fires(m, s._id))[0].kind).toBe('manual');
  });

  it('a schedule whose spider is deleted shows error / Not Found Spider and stops firing', async () => {
    const sid = await spider('doomed');
    const s = await schedule({ cron: '0 0 0 1 1 *', spider_id: sid });
    const del = await m.api('DELETE', `/spiders/${sid}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    const after = await until(async () => {
      const r = await m.master.store.db.selectFrom('schedules').selectAll().where('id', '=', s._id).executeTakeFirst();
      return r?.status === 'error' && r;
    });
    expect(after).toMatchObject({ status: 'error', error: 'Not Found Spider', next_run_ts: null });
    const got = await m.api('GET', `/schedules/${s._id}`);
    expect(got.body.data).toMatchObject({
      status: 'error',
      error: 'Not Found Spider',
      spider_name: null,
      next_run_ts: null,
    });
    const list = await m.api('GET', '/schedules');
    expect(list.body.data.find((x: any) => x._id === s._id)).toMatchObject({
      status: 'error',
      error: 'Not Found Spider',
    });
    expect((await m.api('POST', `/schedules/${s._id}/enable`)).status).toBe(400);
    expect((await m.api('POST', `/schedules/${s._id}/run`)).status).toBe(400);
    expect((await tasksOf(m, s._id)).length).toBe(0);
  });

  it('a fire that finds its spider gone (deleted behind the API) records Not Found Spider', async () => {
    const sid = await spider('vanishing');
    const s = await schedule({ cron: '* * * * * *', spider_id: sid });
    await m.master.store.db.deleteFrom('spiders').where('id', '=', sid).execute();
    const row = await until(async () => {
      const r = await m.master.store.db.selectFrom('schedules').selectAll().where('id', '=', s._id).executeTakeFirst();
      return r?.status === 'error' && r;
    });
    expect(row.error).toBe('Not Found Spider');
    const fs = await fires(m, s._id);
    expect(fs.at(-1)?.error).toBe('Not Found Spider');
  });

  it('selected nodes that are all gone give error / Not Found Node', async () => {
    const sid = await spider('nodeless');
    const nodeId = 'a'.repeat(24);
    const now = Date.now();
    await m.master.store.db
      .insertInto('nodes')
      .values({
        id: nodeId,
        name: 'ghost',
        description: '',
        type: 'worker',
        status: 'offline',
        enabled: 1,
        max_runners: 1,
        running: 0,
        ip: '',
        system_info: '{}',
        metrics: '{}',
        last_seen_ts: null,
        create_ts: now,
        update_ts: now,
      } as any)
      .execute();
    const s = await schedule({ cron: '* * * * * *', spider_id: sid, run_type: 'selected-nodes', node_ids: [nodeId] });
    expect(s.node_ids).toEqual([nodeId]);
    await m.master.store.db.deleteFrom('nodes').where('id', '=', nodeId).execute();
    const got = await until(async () => {
      const r = await m.api('GET', `/schedules/${s._id}`);
      return r.body.data.status === 'error' && r.body.data;
    });
    expect(got.error).toBe('Not Found Node');
  });
});

describe('schedules: retries', () => {
  it('retries an errored task up to the spider retries, each retry linked to the first task', async () => {
    const sid = await spider('failing', { cmd: 'echo boom; exit 3', retries: 2, retry_delay_seconds: 1 });
    const run = await m.api('PUT', '/tasks', { body: { spider_id: sid } });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const first = run.body.data[0];
    const all = await until(
      async () => {
        const rows = await m.master.store.db
          .selectFrom('tasks')
          .select(['id', 'status', 'parent_id'])
          .where('spider_id', '=', sid)
          .execute();
        return rows.length === 3 && rows.every((r) => r.status === 'error') && rows;
      },
      45_000,
      200,
    );
    const retries = all.filter((t) => t.id !== first);
    for (const t of retries) expect(t.parent_id).toBe(first);
    await sleep(1500);
    expect(
      await m.master.store.db.selectFrom('tasks').select('id').where('spider_id', '=', sid).execute(),
    ).toHaveLength(3);
  });

  it("uses the schedule's retries for its tasks", async () => {
    const sid = await spider('failing-sched', { cmd: 'exit 4', retries: 0, retry_delay_seconds: 1 });
    const s = await schedule({ cron: '0 0 0 1 1 *', spider_id: sid, retries: 1 });
    const r = await m.api('POST', `/schedules/${s._id}/run`);
    const first = r.body.data.task_ids[0];
    const all = await until(
      async () => {
        const rows = await tasksOf(m, s._id);
        return rows.length === 2 && rows.every((t) => t.status === 'error') && rows;
      },
      45_000,
      200,
    );
    expect(all.find((t) => t.id !== first)?.parent_id).toBe(first);
    expect(all.every((t) => t.schedule_id === s._id)).toBe(true);
    await sleep(1500);
    expect(await tasksOf(m, s._id)).toHaveLength(2);
  });
});

describe('schedules: restart', () => {
  it('a master restart during a busy schedule neither doubles nor storms; at most one catch-up', async () => {
    const sid = await spider('busy');
    const s = await schedule({ cron: '* * * * * *', spider_id: sid });
    await until(async () => (await fires(m, s._id)).length >= 3);
    const beforeStop = Date.now();
    await m.restart({}, 2500);
    const restarted = Date.now();
    await until(async () => (await fires(m, s._id)).filter((f) => Number(f.fire_ts) > restarted).length >= 2);
    await m.api('POST', `/schedules/${s._id}/disable`);
    await settled(m);
    const fs = await expectOneTaskPerFire(m, s._id);
    const ts = fs.map((f) => Number(f.fire_ts));
    // Exactly one gap (the downtime); the fire right after it is the single catch-up of the latest missed second.
    const gaps = ts
      .slice(1)
      .map((t, i) => t - ts[i])
      .filter((d) => d !== 1000);
    expect(gaps.length).toBe(1);
    const catchUps = fs.filter((f) => f.kind === 'catch-up');
    expect(catchUps).toHaveLength(1);
    const cu = Number(catchUps[0].fire_ts);
    expect(cu).toBeGreaterThan(beforeStop);
    expect(cu).toBeLessThanOrEqual(restarted);
    const idx = ts.indexOf(cu);
    expect(ts[idx] - ts[idx - 1]).toBeGreaterThan(1000);
    expect(ts[idx + 1] - cu).toBe(1000);
    // Lost fires = the downtime's seconds minus the one catch-up: bounded by the downtime.
    const lost = (ts[idx] - ts[idx - 1]) / 1000 - 1;
    expect(lost).toBeLessThanOrEqual(Math.ceil((restarted - beforeStop) / 1000));
  });
});

describe.runIf(ENGINE === 'postgres')('schedules: several masters on PostgreSQL', () => {
  it('only the lock holder fires; when it goes, another takes over and fires continue exactly once', async () => {
    // The test master itself stays out of the election; two peers compete for the lock.
    const prev = process.env.CRAWLDECK_SCHEDULER;
    process.env.CRAWLDECK_SCHEDULER = 'off';
    const api = await startTestMaster();
    if (prev === undefined) delete process.env.CRAWLDECK_SCHEDULER;
    else process.env.CRAWLDECK_SCHEDULER = prev;
    const admin = new pg.Client({ connectionString: api.master.config.databaseUrl });
    await admin.connect();
    try {
      const a = await api.startPeer();
      const b = await api.startPeer();
      const peers = [a, b];
      /** The one peer that says it leads (and the api master does not), or undefined while that is not so. */
      const leader = async () => {
        const r = await Promise.all([api, a, b].map((t) => t.api('GET', '/schedules/meta')));
        const l = r.map((x) => x.body.data.leader as boolean);
        return !l[0] && l.filter(Boolean).length === 1 ? peers[l.indexOf(true) - 1] : undefined;
      };
      /** Backend pid of the session holding the scheduler lock. */
      const lockHolder = async () => {
        const r = await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        );
        return r.rows[0]?.pid;
      };
      await until(leader);

      const sid = await spider('multi', {}, api);
      // Created through the master that does not schedule: the leader learns of it by NOTIFY.
      const s = await schedule({ cron: '* * * * * *', spider_id: sid }, api);
      await until(async () => (await fires(api, s._id)).length >= 3);

      // 1. The leader's lock connection dies (PostgreSQL dropped it): the leader stops, and whichever peer takes
      //    the lock next carries on. Both peers are alive and compete, so either may win; the test waits for the
      //    lock to be held by a new session and for the peers to agree on one leader.
      const k1 = Date.now();
      const held = await lockHolder();
      await admin.query('SELECT pg_terminate_backend($1)', [held]);
      await until(async () => {
        const pid = await lockHolder();
        return pid !== undefined && pid !== held;
      });
      const second = await until(leader);
      const t1 = Date.now();
      await until(async () => (await fires(api, s._id)).filter((f) => Number(f.fire_ts) > t1).length >= 2);

      // 2. That leader stops (as a master that shuts down): the other peer, the only one left, takes over.
      const first = second === a ? b : a;
      const k2 = Date.now();
      await second.close();
      await until(async () => (await first.api('GET', '/schedules/meta')).body.data.leader === true);
      const t2 = Date.now();
      await until(async () => (await fires(api, s._id)).filter((f) => Number(f.fire_ts) > t2).length >= 2);
      // Closing the last leader waits for a fire in progress, so the record below is final.
      await first.close();

      const fs = await expectOneTaskPerFire(api, s._id);
      const ts = fs.map((f) => Number(f.fire_ts));
      // Two hand-overs: at most two gaps, each no longer than its hand-over took (plus the second being fired
      // when it began), and at most one catch-up per hand-over.
      const gaps = ts
        .slice(1)
        .map((t, i) => t - ts[i])
        .filter((d) => d !== 1000);
      expect(gaps.length).toBeLessThanOrEqual(2);
      for (const g of gaps) expect(g).toBeLessThanOrEqual(Math.max(t1 - k1, t2 - k2) + 2000);
      expect(fs.filter((f) => f.kind === 'catch-up').length).toBeLessThanOrEqual(2);
      // Fires came from two different masters.
      expect(new Set(fs.map((f) => f.master)).size).toBe(2);
    } finally {
      await admin.end();
      await api.close();
    }
  });
});

import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, tableExists } from './seed-rows.ts';

let m: TestMaster;
let normal: string;
beforeAll(async () => {
  m = await startTestMaster();
  normal = await m.createUser('nick');
});
afterAll(async () => {
  await m?.close();
});

describe('settings', () => {
  it('refuses every admin settings call to a normal user with 403', async () => {
    const calls: [string, string, unknown?][] = [
      ['POST', '/setting', { enable_tutorial: 'N' }],
      ['GET', '/system/setting'],
      ['GET', '/system/database'],
      ['POST', '/system/database', { log_retention_days: 1 }],
      ['POST', '/system/database/cleanup'],
      ['GET', '/actions/summary'],
      ['GET', '/feedback'],
    ];
    for (const [method, route, body] of calls)
      expect((await m.api(method, route, { token: normal, body })).status, `${method} ${route}`).toBe(403);
    expect((await m.api('GET', '/setting', { token: null })).body.data.enable_tutorial).toBe('Y');
  });

  it('switches the tutorial default, seen by the public GET /setting', async () => {
    expect((await m.api('POST', '/setting', { body: { enable_tutorial: 'N' } })).body.data).toEqual({
      enable_tutorial: 'N',
      stats_endpoint: '',
      outbound_allow: '',
      allow_signup: 'N',
      user_tasks_on_master: 'N',
      user_tasks_unsandboxed: 'N',
      public_url: '',
      node_join_shared_key: 'Y',
    });
    expect((await m.api('GET', '/setting', { token: null })).body.data.enable_tutorial).toBe('N');
    expect((await m.api('POST', '/setting', { body: { enable_tutorial: 'maybe' } })).status).toBe(400);
    await m.api('POST', '/setting', { body: { enable_tutorial: 'Y' } });
    expect((await m.api('GET', '/setting', { token: null })).body.data).toEqual({
      enable_tutorial: 'Y',
      allow_signup: 'N',
    });
  });

  it('keeps the console address notifications link to, refusing what is not an http(s) URL', async () => {
    const set = await m.api('POST', '/setting', { body: { public_url: ' https://crawl.example.com/ ' } });
    expect(set.body.data.public_url).toBe('https://crawl.example.com');
    expect((await m.api('POST', '/setting', { body: { public_url: 'crawl.example.com' } })).status).toBe(400);
    expect((await m.api('POST', '/setting', { body: { public_url: '' } })).body.data.public_url).toBe('');
  });

  it('changes the own password (≥ 5) through POST /me', async () => {
    const t = await m.login('nick', 'password1');
    expect((await m.api('POST', '/me', { token: t, body: { password: 'abc' } })).status).toBe(400);
    expect(
      (await m.api('POST', '/me', { token: t, body: { password: 'nick-new-pass', current_password: 'password1' } }))
        .status,
    ).toBe(200);
    expect((await m.api('GET', '/me', { token: normal })).status).toBe(401);
    normal = await m.login('nick', 'nick-new-pass');
  });

  it('forwards stored actions to the configured stats endpoint from the master, never blocking the call', async () => {
    const received: unknown[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      expect((await m.api('POST', '/setting', { body: { stats_endpoint: 'ftp://x' } })).status).toBe(400);
      const set = await m.api('POST', '/setting', { body: { stats_endpoint: `http://127.0.0.1:${port}/collect` } });
      expect(set.body.data.stats_endpoint).toBe(`http://127.0.0.1:${port}/collect`);
      expect((await m.api('GET', '/system/setting')).body.data.stats_endpoint).toContain('/collect');
      expect((await m.api('GET', '/setting', { token: null })).body.data.stats_endpoint).toBeUndefined();
      await m.api('PUT', '/actions', { body: { type: 'page_view', params: { path: '/home' } } });
      for (let i = 0; i < 50 && !received.length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(received[0]).toMatchObject({ type: 'page_view', params: { path: '/home' }, source: 'crawldeck' });
      // An unreachable endpoint never fails the collector.
      await m.api('POST', '/setting', { body: { stats_endpoint: 'http://127.0.0.1:9/none' } });
      expect((await m.api('PUT', '/actions', { body: { type: 'visit' } })).status).toBe(200);
      await m.api('POST', '/setting', { body: { stats_endpoint: '' } });
    } finally {
      server.close();
    }
    const summary = await m.api('GET', '/actions/summary');
    expect(summary.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'page_view', count: 1, users: 1 })]),
    );
  });

  it('describes the database: engine, location without password, size, health, row counts', async () => {
    const r = await m.api('GET', '/system/database');
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.engine).toBe(ENGINE);
    expect(d.location).not.toMatch(/:[^@/]*@/);
    expect(d.size_bytes).toBeGreaterThan(0);
    expect(d.health.ok).toBe(true);
    expect(d.health.latency_ms).toBeGreaterThanOrEqual(0);
    const users = d.tables.find((t: { table: string }) => t.table === 'users');
    expect(users).toEqual({ table: 'users', rows: 2, approximate: false });
    expect(d.log_retention_days).toBe(0);
    expect((await m.api('POST', '/system/database', { body: { log_retention_days: -1 } })).status).toBe(400);
  });

  it('deletes task logs of tasks finished longer ago than the retention, on demand', async () => {
    const db = m.master.store.db;
    // Retention 0 keeps everything.
    expect((await m.api('POST', '/system/database/cleanup')).body.data).toEqual({ deleted: 0, ran: false });
    expect(
      (await m.api('POST', '/system/database', { body: { log_retention_days: 7 } })).body.data.log_retention_days,
    ).toBe(7);
    if (!(await tableExists(db, 'tasks')) || !(await tableExists(db, 'task_logs'))) {
      expect((await m.api('POST', '/system/database/cleanup')).body.data).toEqual({ deleted: 0, ran: false });
      return;
    }
    const now = Date.now();
    const spider = newId();
    const owner = (await db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow())
      .id;
    await insertRow(db, 'spiders', { id: spider, owner_id: owner });
    const old = newId();
    const recent = newId();
    const running = newId();
    await insertRow(db, 'tasks', {
      id: old,
      spider_id: spider,
      status: 'finished',
      create_ts: now - 20 * 86400_000,
      finish_ts: now - 10 * 86400_000,
    });
    await insertRow(db, 'tasks', {
      id: recent,
      spider_id: spider,
      status: 'finished',
      create_ts: now - 2 * 86400_000,
      finish_ts: now - 86400_000,
    });
    await insertRow(db, 'tasks', {
      id: running,
      spider_id: spider,
      status: 'running',
      create_ts: now - 30 * 86400_000,
      finish_ts: null,
    });
    for (const id of [old, recent, running])
      for (let i = 1; i <= 3; i++) await insertRow(db, 'task_logs', { task_id: id, line_no: i, msg: `line ${i}` });
    const r = await m.api('POST', '/system/database/cleanup');
    expect(r.body.data).toEqual({ deleted: 3, ran: true });
    const left = await sql<{
      task_id: string;
      n: number;
    }>`SELECT task_id, COUNT(*) AS n FROM task_logs GROUP BY task_id`.execute(db);
    expect(Object.fromEntries(left.rows.map((x) => [x.task_id, Number(x.n)]))).toEqual({ [recent]: 3, [running]: 3 });
    expect((await m.api('GET', '/system/database')).body.data.last_cleanup).toMatchObject({ deleted: 3 });
    const counts = (await m.api('GET', '/system/database')).body.data.tables;
    expect(counts.find((t: { table: string }) => t.table === 'task_logs').rows).toBe(6);
  });
});

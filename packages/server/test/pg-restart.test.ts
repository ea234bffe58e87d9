import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ENGINE, startTestMasterOn, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';
import { startPgServer, type PgServer } from './support/pg-server.ts';
import { schedulerOf } from '../src/features/schedules/schedules.routes.ts';

// PostgreSQL restarts under two masters (stop fast, then start): the masters keep serving (503 for what needs the
// store while it is away), their LISTEN channels and the scheduler lock come back, a task still crosses from one
// master to the node held by the other, and no schedule slot fires twice. The test runs its own PostgreSQL server
// so it can stop it; ports come from the range below.
const PG_PORTS: [number, number] = [55400, 55499];
const pgOnly = ENGINE === 'postgres' ? describe : describe.skip;

// Fast re-election after the restart; read when each master starts.
process.env.CRAWLDECK_SCHEDULER_LOCK_RETRY_SECONDS = '0.5';

let server: PgServer | undefined;
let a: TestMaster | undefined;
let b: TestMaster | undefined;
let node: ChildNode | undefined;

beforeAll(async () => {
  if (ENGINE !== 'postgres') return;
  server = await startPgServer(...PG_PORTS);
  a = await startTestMasterOn(server.url, { nodeKey: 'pgr-key' });
  b = await startTestMasterOn(server.url, { nodeKey: 'pgr-key' });
  node = spawnNode(b.url, 'pgr-key', 'held-by-b');
  await waitNodes(a, 1, 30_000);
}, 120_000);

afterAll(async () => {
  node?.proc.kill('SIGKILL');
  await a?.close().catch(() => undefined);
  await b?.close().catch(() => undefined);
  await server?.destroy();
}, 60_000);

/** Sessions of the test server whose last statement was `query` (a LISTEN client stays idle after it). */
async function sessionsLast(query: string): Promise<number> {
  const c = new pg.Client({ connectionString: server!.url });
  await c.connect();
  try {
    const r = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1', [query]);
    return r.rows[0].n;
  } finally {
    await c.end();
  }
}

async function leaderOf(masters: TestMaster[]): Promise<TestMaster | undefined> {
  const r = await Promise.all(masters.map((m) => m.api('GET', '/schedules/meta')));
  const l = r.map((x) => x.status === 200 && x.body.data.leader === true);
  return l.filter(Boolean).length === 1 ? masters[l.indexOf(true)] : undefined;
}

pgOnly('PostgreSQL restart under two masters', () => {
  it('both masters survive; 503 while it is down; LISTEN, the scheduler lock and cross-master tasks come back; no slot fires twice', async () => {
    const [ma, mb] = [a!, b!];
    const db = ma.master.store.db;
    const sid = await makeSpider(ma, 'every-second', 'echo tick');
    const made = await ma.api('PUT', '/schedules', {
      body: { name: 'restart', cron: '* * * * * *', spider_id: sid, timezone: 'UTC', retries: 0 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const scheduleId: string = made.body.data._id;
    const fires = () =>
      db.selectFrom('schedule_fires').selectAll().where('schedule_id', '=', scheduleId).orderBy('fire_ts').execute();
    await waitFor('three fires before the restart', async () => (await fires()).length >= 3, 30_000);

    await server!.stop();
    const stoppedAt = Date.now();
    for (const m of [ma, mb]) {
      expect((await m.api('GET', '/version')).status).toBe(200);
      const list = await m.api('GET', '/spiders');
      expect(list.status).toBe(503);
      expect(list.body.error).toMatch(/database is unavailable/);
    }
    await server!.start();
    const startedAt = Date.now();

    await waitFor(
      'lists answer on both masters',
      async () => {
        const r = await Promise.all([ma, mb].map((m) => m.api('GET', '/spiders')));
        return r.every((x) => x.status === 200);
      },
      30_000,
    );
    // Both task-bus clients LISTEN again, and one master holds the scheduler lock again.
    await waitFor(
      'both task buses listening',
      async () => (await sessionsLast('LISTEN crawldeck_tasks')) === 2,
      30_000,
    );
    await waitFor('one scheduler leader', () => leaderOf([ma, mb]), 30_000);
    await waitFor(
      'fires after the restart',
      async () => (await fires()).filter((f) => Number(f.fire_ts) > startedAt).length >= 2,
      30_000,
    );

    // Created through A, run by the node whose WebSocket is held by B: the dispatch notice crosses the bus.
    const across = await makeSpider(ma, 'across-after-restart', 'echo crossed-after-restart');
    const [t] = await runSpider(ma, across);
    const task = await waitTask(ma, t, ['finished', 'error', 'abnormal'], 30_000);
    expect(task.status).toBe('finished');
    expect((await allLog(ma, t)).map((l) => l.msg)).toContain('crossed-after-restart');

    // Stop firing through the leader (its timer is dropped at once), then let a fire in progress finish.
    const leader = (await leaderOf([ma, mb]))!;
    expect((await leader.api('POST', `/schedules/${scheduleId}/disable`)).status).toBe(200);
    await schedulerOf(leader.master.ctx)!.scheduler.settled();

    const fs = await fires();
    const perSlot = new Map<number, number>();
    for (const f of fs) perSlot.set(Number(f.fire_ts), (perSlot.get(Number(f.fire_ts)) ?? 0) + 1);
    const fireTasks = fs.map((f) => JSON.parse(f.task_ids) as string[]);
    const tasks = await db
      .selectFrom('tasks')
      .select(['id', 'status', 'log_lines'])
      .where('schedule_id', '=', scheduleId)
      .where('parent_id', 'is', null)
      .execute();
    const ts = fs.map((f) => Number(f.fire_ts));
    const gap = Math.max(...ts.slice(1).map((x, i) => x - ts[i]));
    console.info(
      `pg restart: ${fs.length} fires over ${perSlot.size} slots, at most ${Math.max(...perSlot.values())} per slot; ` +
        `${tasks.length} tasks, at most ${Math.max(...fireTasks.map((x) => x.length))} per fire, ${fireTasks.filter((x) => !x.length).length} fires without a task, ${tasks.filter((x) => !fireTasks.flat().includes(x.id)).length} tasks outside the fires' records; ` +
        `${fs.filter((f) => f.kind === 'catch-up').length} catch-up; longest gap ${gap} ms; PostgreSQL down ${startedAt - stoppedAt} ms`,
    );
    // Exactly once per slot: one fire per slot, at most one task per fire, no task outside the fires' records.
    expect(Math.max(...perSlot.values())).toBe(1);
    for (const ids of fireTasks) expect(ids.length).toBeLessThanOrEqual(1);
    expect(tasks.length).toBeLessThanOrEqual(fs.length);
    expect(new Set(fireTasks.flat()).size).toBe(fireTasks.flat().length);

    // Nothing lost: every task of the schedule ends finished with its log line, also those around the restart
    // (their reports and log batches are repeated by the node until the store takes them).
    const settledTasks = await waitFor(
      'every scheduled task finished',
      async () => {
        const rows = await db
          .selectFrom('tasks')
          .select(['id', 'status', 'log_lines'])
          .where('schedule_id', '=', scheduleId)
          .where('parent_id', 'is', null)
          .execute();
        return rows.every((r) => r.status !== 'pending' && r.status !== 'running') && rows;
      },
      60_000,
      200,
    );
    expect(settledTasks.filter((r) => r.status !== 'finished')).toEqual([]);
    expect(settledTasks.filter((r) => r.log_lines < 1)).toEqual([]);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@crawldeck/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { gatePath, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { openStore } from '../src/store/db.ts';
import { claimWithinLimits, spiderLimits } from '../src/features/execution/queue.store.ts';
import { schedulerOf } from '../src/features/schedules/schedules.routes.ts';

let m: TestMaster;
let nodeId = '';
const gates: string[] = [];

/** Waits until the gate file named by its first argument exists, so a test decides when the task ends. */
const GATE_SH = 'while [ ! -e "$1" ]; do sleep 0.05; done\necho "through $1"\n';

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  nodeId = ((await waitNodes(m, 1)) as { _id: string }[])[0]._id;
  // Slots to spare: only the concurrency limits hold tasks back.
  expect((await m.api('POST', `/nodes/${nodeId}`, { body: { max_runners: 6 } })).status).toBe(200);
});
afterAll(async () => {
  for (const g of gates) writeFileSync(g, '');
  await m?.close();
  for (const g of gates) rmSync(g, { force: true });
});

function gate(name: string): string {
  const g = gatePath(`limits-${name}`);
  gates.push(g);
  return g;
}

const task = async (id: string) => (await m.api('GET', `/tasks/${id}`)).body.data;

async function waitReason(id: string, reason: string) {
  return waitFor(`task ${id} to wait for ${reason}`, async () => {
    const t = await task(id);
    return t.status === 'pending' && t.waiting_reason === reason ? t : undefined;
  });
}

describe('concurrency limits', () => {
  it('stores the limits of spiders and projects and refuses values out of range', async () => {
    const id = await makeSpider(m, 'limit-fields', 'true', {}, { max_running: 2 });
    expect((await m.api('GET', `/spiders/${id}`)).body.data.max_running).toBe(2);
    expect((await m.api('POST', `/spiders/${id}`, { body: { max_running: -1 } })).status).toBe(400);
    expect((await m.api('POST', `/spiders/${id}`, { body: { max_running: 1.5 } })).status).toBe(400);
    expect((await m.api('POST', `/spiders/${id}`, { body: { max_running: 0 } })).status).toBe(200);
    expect((await m.api('GET', `/spiders/${id}`)).body.data.max_running).toBe(0);
    const p = await m.api('PUT', '/projects', { body: { name: 'limit-fields', max_running: 3 } });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.data.max_running).toBe(3);
    const pid = p.body.data._id as string;
    expect((await m.api('POST', `/projects/${pid}`, { body: { max_running: 10_001 } })).status).toBe(400);
    expect((await m.api('POST', `/projects/${pid}`, { body: { max_running: 1 } })).body.data.max_running).toBe(1);
  });

  it('a spider limit of 1 runs its tasks one at a time, and tasks behind them start meanwhile', async () => {
    const limited = await makeSpider(m, 'one-at-a-time', 'sh gate.sh', { 'gate.sh': GATE_SH }, { max_running: 1 });
    const other = await makeSpider(m, 'free-spider', 'sh gate.sh', { 'gate.sh': GATE_SH });
    const [gA, gB, gOther] = ['a', 'b', 'other'].map(gate);
    // The waiting task is older and of a higher priority than the other spider's: it must not hold it back.
    const [a] = await runSpider(m, limited, { param: gA });
    await waitTask(m, a, ['running']);
    const [b] = await runSpider(m, limited, { param: gB, priority: 1 });
    const [o] = await runSpider(m, other, { param: gOther, priority: 5 });
    await waitTask(m, o, ['running']);
    await waitReason(b, 'spider_concurrency');
    writeFileSync(gA, '');
    await waitTask(m, a, ['finished']);
    await waitTask(m, b, ['running']);
    writeFileSync(gB, '');
    writeFileSync(gOther, '');
    await waitTask(m, b, ['finished']);
    await waitTask(m, o, ['finished']);
  });

  it("a project limit counts the tasks of all the project's spiders", async () => {
    const p = await m.api('PUT', '/projects', { body: { name: 'limited-project', max_running: 1 } });
    const project = p.body.data._id as string;
    const s1 = await makeSpider(m, 'in-project-1', 'sh gate.sh', { 'gate.sh': GATE_SH }, { project_id: project });
    const s2 = await makeSpider(m, 'in-project-2', 'sh gate.sh', { 'gate.sh': GATE_SH }, { project_id: project });
    const [g1, g2] = ['p1', 'p2'].map(gate);
    const [t1] = await runSpider(m, s1, { param: g1 });
    await waitTask(m, t1, ['running']);
    const [t2] = await runSpider(m, s2, { param: g2 });
    await waitReason(t2, 'project_concurrency');
    // The project's slot frees: the other spider's task starts.
    writeFileSync(g1, '');
    await waitTask(m, t1, ['finished']);
    await waitTask(m, t2, ['running']);
    writeFileSync(g2, '');
    await waitTask(m, t2, ['finished']);
  });

  it('a limit of 1 holds when 20 claims race, from two masters sharing the store on PostgreSQL', async () => {
    const spider = await makeSpider(m, 'raced', 'true', {}, { max_running: 1 });
    const now = Date.now();
    const ids = Array.from({ length: 20 }, (_, i) => newId(now + i));
    const db = m.master.ctx.store.db;
    // Tasks written straight into the store, each made for a node no master holds: only the claims below take them.
    await db
      .insertInto('tasks')
      .values(
        ids.map((id, i) => ({
          id,
          spider_id: spider,
          node_id: `fake-node-${i}`,
          schedule_id: null,
          parent_id: null,
          type: 'spider',
          status: 'pending',
          run_type: 'selected-nodes',
          param: '',
          cmd: '',
          error: '',
          exit_code: null,
          pid: null,
          result_count: 0,
          log_lines: 0,
          error_lines: 0,
          item_offset: 0,
          assign_ts: null,
          create_ts: now + i,
          start_ts: null,
          finish_ts: null,
          owner_id: null,
        })),
      )
      .execute();
    // On PostgreSQL a second master's own connection to the store; SQLite has one master, whose claims interleave.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-limits-peer-'));
    const peer =
      ENGINE === 'postgres' ? openStore({ dataDir: dir, databaseUrl: m.master.ctx.config.databaseUrl }) : undefined;
    try {
      const limit = (await spiderLimits(db, [spider])).get(spider)!;
      const outcomes = await Promise.all(
        ids.map((id, i) =>
          claimWithinLimits(i % 2 && peer ? peer.db : db, { id, spider_id: spider }, `fake-node-${i}`, limit),
        ),
      );
      expect(outcomes.filter((o) => o === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'spider_concurrency')).toHaveLength(19);
      const held = await db.selectFrom('tasks').select('id').where('id', 'in', ids).where('assign_ts', 'is not', null);
      expect(await held.execute()).toHaveLength(1);
    } finally {
      await db.updateTable('tasks').set({ status: 'cancelled' }).where('id', 'in', ids).execute();
      await peer?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('skipping a fire while the previous run goes', () => {
  it('records the fire as skipped, and fires again once the previous run ended', async () => {
    const spider = await makeSpider(m, 'scheduled-slow', 'sh gate.sh', { 'gate.sh': GATE_SH });
    const g = gate('schedule');
    const made = await m.api('PUT', '/schedules', {
      body: { name: 'no-overlap', cron: '0 0 0 1 1 *', spider_id: spider, param: g, skip_if_running: true },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.data.skip_if_running).toBe(true);
    const id = made.body.data._id as string;
    const scheduler = schedulerOf(m.master.ctx)!.scheduler;
    const base = Date.now() - 60_000;
    const first = await scheduler.fire(id, base, 'cron');
    expect(first.taskIds).toHaveLength(1);
    await waitTask(m, first.taskIds[0], ['running']);
    const second = await scheduler.fire(id, base + 1000, 'cron');
    expect(second).toMatchObject({ fired: true, taskIds: [] });
    const fires = (await m.api('GET', `/schedules/${id}/fires`)).body.data as { fire_ts: string; skipped: string }[];
    const skipped = fires.find((f) => Date.parse(f.fire_ts) === base + 1000);
    expect(skipped?.skipped).toBe('previous_running');
    // A run started by hand is not skipped.
    const manual = await m.api('POST', `/schedules/${id}/run`);
    expect(manual.body.data.task_ids).toHaveLength(1);
    writeFileSync(g, '');
    await waitTask(m, first.taskIds[0], ['finished']);
    await waitTask(m, manual.body.data.task_ids[0], ['finished']);
    const third = await scheduler.fire(id, Date.now(), 'cron');
    expect(third.taskIds).toHaveLength(1);
    await waitTask(m, third.taskIds[0], ['finished']);
    // Turned off, fires no longer skip.
    expect((await m.api('POST', `/schedules/${id}`, { body: { skip_if_running: false } })).status).toBe(200);
    expect((await m.api('GET', `/schedules/${id}`)).body.data.skip_if_running).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql, type Compilable, type Kysely, type KyselyPlugin } from 'kysely';
import { EMPTY_ID, newId } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { insertRow } from './seed-rows.ts';
import { makeSpider } from './tasks.helpers.ts';
import { listTasks } from '../src/features/tasks/tasks.store.ts';
import { tasksOnNode, tasksOnNodeQuery } from '../src/features/execution/task-state.store.ts';
import { queuedTasks, slotsHeldBySpiders } from '../src/features/execution/queue.store.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
});

const db = () => m.master.store.db as Kysely<any>;
const sqlite = () => m.master.store.engine === 'sqlite';

/** Whether the tasks index `name` holds only the rows of a condition (a partial index). */
async function isPartial(name: string): Promise<boolean> {
  if (sqlite()) {
    const { rows } = await sql<{ name: string; partial: number }>`PRAGMA index_list(tasks)`.execute(db());
    return rows.find((r) => r.name === name)?.partial === 1;
  }
  const { rows } = await sql<{ partial: boolean }>`SELECT indpred IS NOT NULL AS partial FROM pg_index
    WHERE indexrelid = ${name}::regclass`.execute(db());
  return rows[0]?.partial === true;
}

/**
 * The engine's plan of a statement. PostgreSQL is told to avoid whole-table scans, which on a test's few rows it
 * would prefer: the plan then shows whether an index can serve the statement at all (a partial index only can if
 * the statement implies its condition).
 */
async function plan(c: CompiledQuery): Promise<string> {
  if (sqlite()) {
    const { rows } = await db().executeQuery(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters]));
    return rows.map((r: any) => String(r.detail)).join('\n');
  }
  return db()
    .transaction()
    .execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const { rows } = await trx.executeQuery(CompiledQuery.raw(`EXPLAIN ${c.sql}`, [...c.parameters]));
      return rows.map((r: any) => String(r['QUERY PLAN'])).join('\n');
    });
}

/** The statements a store function runs, compiled, as it runs them. */
function recording(): { db: Kysely<any>; statements: CompiledQuery[] } {
  const statements: CompiledQuery[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      statements.push(db().getExecutor().compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { db: db().withPlugin(plugin), statements };
}

const compiled = (q: Compilable) => q.compile();

async function addTask(spiderId: string, nodeId: string, status: string, more: Record<string, unknown> = {}) {
  const id = newId();
  await insertRow(db(), 'tasks', { id, spider_id: spiderId, node_id: nodeId, status, run_type: 'random', ...more });
  return id;
}

describe('the node index', () => {
  it('holds only pending and running tasks, and the read of what a node holds still goes through it', async () => {
    expect(await isPartial('tasks_node_idx')).toBe(true);
    const spiderId = await makeSpider(m, 'partial-node', 'echo x');
    const nodeId = newId();
    const running = await addTask(spiderId, nodeId, 'running', { assign_ts: Date.now() });
    const claimed = await addTask(spiderId, nodeId, 'pending', { assign_ts: Date.now() });
    await addTask(spiderId, nodeId, 'pending');
    for (const status of ['finished', 'error', 'cancelled', 'abnormal'])
      await addTask(spiderId, nodeId, status, { assign_ts: Date.now() });

    const held = await tasksOnNode(db(), nodeId);
    expect(held.map((t) => t.id).sort()).toEqual([running, claimed].sort());

    const p = await plan(compiled(tasksOnNodeQuery(db(), nodeId)));
    expect(p).toContain(sqlite() ? 'tasks_node_idx (node_id=? AND status=?)' : 'tasks_node_idx');
  });
});

describe('the schedule index', () => {
  it("holds only scheduled tasks, and a schedule's task list still goes through it", async () => {
    expect(await isPartial('tasks_schedule_idx')).toBe(true);
    const spiderId = await makeSpider(m, 'partial-schedule', 'echo x');
    const scheduleId = newId();
    const t0 = Date.now() - 10_000;
    const ours = [];
    for (let i = 0; i < 3; i++)
      ours.push(await addTask(spiderId, newId(), 'finished', { schedule_id: scheduleId, create_ts: t0 + i }));
    await addTask(spiderId, newId(), 'finished', { schedule_id: newId(), create_ts: t0 + 5 });
    await addTask(spiderId, newId(), 'finished', { create_ts: t0 + 6 });

    const r = await m.api('GET', `/tasks?schedule_id=${scheduleId}&page_size=10`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((t: { _id: string }) => t._id)).toEqual([...ours].reverse());
    expect(r.body.total).toBe(3);

    // The page and its count, as the list runs them, each read the schedule's range of the index.
    const rec = recording();
    const store = { db: rec.db, engine: m.master.store.engine };
    await listTasks(store, { all: true }, { schedule_id: scheduleId }, { limit: 10, offset: 0 }, 10, 100);
    // (The builder also hands the count's inner select over on its own; it is part of the count's statement.)
    const reads = rec.statements.filter((c) => c.sql.includes('schedule_id') && !c.sql.startsWith('select 1'));
    expect(reads.map((c) => c.sql.slice(0, 15))).toEqual(['select * from "', 'select count(*)']);
    for (const c of reads)
      expect(await plan(c)).toContain(sqlite() ? 'tasks_schedule_idx (schedule_id=?)' : 'tasks_schedule_idx');
  });
});

describe('the queue indexes', () => {
  it("dispatch's read walks the queue's order and the count of held slots reads only the work in flight", async () => {
    expect(await isPartial('tasks_queue_idx')).toBe(true);
    expect(await isPartial('tasks_slot_idx')).toBe(true);
    const spiderId = await makeSpider(m, 'partial-queue', 'echo x');
    const nodeId = newId();
    const waiting = await addTask(spiderId, EMPTY_ID, 'pending', { priority: 2 });
    const held = await addTask(spiderId, nodeId, 'running', { assign_ts: Date.now() });
    await addTask(spiderId, nodeId, 'finished', { assign_ts: Date.now() });

    const rec = recording();
    const read = await queuedTasks(rec.db, { nodes: new Set([nodeId]), limit: 10 });
    expect(read.map((t) => t.id)).toContain(waiting);
    expect(read.map((t) => t.id)).not.toContain(held);
    const after = { priority: 1, create_ts: 0, id: '' };
    await queuedTasks(rec.db, { nodes: new Set([nodeId]), limit: 10, after });
    expect((await slotsHeldBySpiders(rec.db, [spiderId])).get(spiderId)).toBe(1);
    const [first, next, count] = rec.statements;
    for (const c of [first, next]) {
      const p = await plan(c);
      expect(p).toContain('tasks_queue_idx');
      if (sqlite()) expect(p).not.toContain('TEMP B-TREE');
    }
    expect(await plan(count)).toContain('tasks_slot_idx');
  });
});

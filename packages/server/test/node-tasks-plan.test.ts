import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery } from 'kysely';
import { newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow } from './seed-rows.ts';
import { makeSpider } from './tasks.helpers.ts';
import { tasksOnNode, tasksOnNodeQuery } from '../src/features/execution/task-state.store.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
});

describe('the tasks a node holds', () => {
  it('are its running and claimed tasks', async () => {
    const db = m.master.store.db;
    const spiderId = await makeSpider(m, 'history', 'echo x');
    const nodeId = newId();
    const rows: Array<[status: string, claimed: boolean]> = [
      ['finished', true],
      ['error', true],
      ['running', true],
      ['pending', true],
      ['pending', false],
      ['cancelled', true],
    ];
    const ids = [];
    for (const [status, claimed] of rows) {
      const id = newId();
      ids.push(id);
      await insertRow(db, 'tasks', {
        id,
        spider_id: spiderId,
        node_id: nodeId,
        status,
        assign_ts: claimed ? Date.now() : null,
      });
    }
    const held = await tasksOnNode(db, nodeId);
    expect(held.map((t) => t.id).sort()).toEqual([ids[2], ids[3]].sort());
  });

  // On SQLite, whose planner has no statistics, the statement has to reach the (node_id, status) index with both
  // columns, or a node's whole history is read.
  it.runIf(ENGINE === 'sqlite')('are read without walking its history', async () => {
    const db = m.master.store.db;
    const c = tasksOnNodeQuery(db, newId()).compile();
    const plan = (await db.executeQuery(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters]))).rows.map(
      (r: any) => String(r.detail),
    );
    expect(plan.join('\n')).toContain('(node_id=? AND status=?)');
  });
});

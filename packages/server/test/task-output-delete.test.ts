import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';
import { makeSpider, waitFor } from './tasks.helpers.ts';

let m: TestMaster;
let spiderId: string;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
  spiderId = await makeSpider(m, 'output-delete', 'echo x');
});
afterAll(async () => {
  await m?.close();
});

const db = () => m.master.store.db;

const FINISHED = { node_id: newId(), status: 'finished', run_type: 'random', type: 'spider' };

/** Finished tasks, every other one with three log lines and two items; their ids. */
async function tasks(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId());
  await insertRows(
    db(),
    'tasks',
    ids.map((id, i) => ({ ...FINISHED, id, spider_id: spiderId, create_ts: Date.now() + i })),
  );
  const withOutput = ids.filter((_, i) => i % 2 === 0);
  await storeOutput(withOutput, 1, 3);
  return ids;
}

/** Log lines from `from` on and `lines` / 3 * 2 items for each of these tasks. */
async function storeOutput(ids: string[], from: number, lines: number, at = db()): Promise<void> {
  const rows = ids.flatMap((id) =>
    Array.from({ length: lines }, (_, k) => ({ task_id: id, line_no: from + k, msg: `line ${k}`, is_error: 0 })),
  );
  await insertRows(at, 'task_logs', rows);
  for (const id of ids)
    for (let k = 0; k < 2; k++)
      await insertRow(at, 'results', { collection: 'c', task_id: id, spider_id: spiderId, data: '{}', create_ts: 1 });
}

/** Log lines and items of these tasks still stored. */
async function output(ids: string[]): Promise<{ lines: number; items: number }> {
  const n = async (table: 'task_logs' | 'results') =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((e) => e.fn.countAll().as('n'))
          .where('task_id', 'in', ids)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { lines: await n('task_logs'), items: await n('results') };
}

describe("a task's log lines and items go with its row", () => {
  it('for every task one statement deletes, and for no other task', async () => {
    const ids = await tasks(30);
    const [gone, kept] = [ids.slice(0, 20), ids.slice(20)];
    await db().deleteFrom('tasks').where('id', 'in', gone).execute();
    expect(await output(gone)).toEqual({ lines: 0, items: 0 });
    expect(await output(kept)).toEqual({ lines: 5 * 3, items: 5 * 2 });
    // A statement that deletes no task deletes no output.
    await db().deleteFrom('tasks').where('id', '=', newId()).execute();
    expect(await output(kept)).toEqual({ lines: 5 * 3, items: 5 * 2 });
  });

  it('when tasks are deleted through the API, one by one or together', async () => {
    const ids = await tasks(7);
    expect((await m.api('DELETE', `/tasks/${ids[0]}`)).status).toBe(200);
    expect((await m.api('DELETE', '/tasks', { body: { ids: ids.slice(1, 5) } })).status).toBe(200);
    expect(await output(ids.slice(0, 5))).toEqual({ lines: 0, items: 0 });
    expect(await output(ids.slice(5))).toEqual({ lines: 3, items: 2 });
  });

  it.runIf(ENGINE === 'postgres')(
    'on PostgreSQL by one call of the store per statement, not one per task',
    async () => {
      const ids = await tasks(12);
      const calls = await db()
        .transaction()
        .execute(async (trx) => {
          await sql`SET LOCAL track_functions = 'pl'`.execute(trx);
          await trx.deleteFrom('tasks').where('id', 'in', ids).execute();
          const r = await sql<{
            n: string;
          }>`SELECT pg_stat_get_xact_function_calls('tasks_delete_output'::regproc) AS n`.execute(trx);
          return Number(r.rows[0].n);
        });
      expect(calls).toBe(1);
      expect(await output(ids)).toEqual({ lines: 0, items: 0 });
    },
  );

  it.runIf(ENGINE === 'postgres')('on PostgreSQL also when stored while the deletion waited for the task', async () => {
    const [busy, idle] = await tasks(2);
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    // What a batch of the ingest does: the task row locked, lines and items stored, the offset moved, then commit.
    const batch = db()
      .transaction()
      .execute(async (trx) => {
        await sql`SELECT id FROM tasks WHERE id = ${busy} FOR UPDATE`.execute(trx);
        await storeOutput([busy], 4, 3, trx);
        locked();
        await committing;
      });
    await lockHeld;
    const deletion = db().deleteFrom('tasks').where('id', 'in', [busy, idle]).execute();
    await waitFor('the deletion waiting for the task row', async () => {
      const r = await sql<{ n: string }>`SELECT COUNT(*) AS n FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query LIKE 'delete from "tasks"%'`.execute(db());
      return Number(r.rows[0].n) > 0;
    });
    commit();
    await batch;
    await deletion;
    expect(await output([busy, idle])).toEqual({ lines: 0, items: 0 });
  });
});

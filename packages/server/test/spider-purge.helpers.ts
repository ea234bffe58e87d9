import { sql } from 'kysely';
import { newId } from '@crawldeck/shared';
import type { TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';
import { waitFor } from './tasks.helpers.ts';

/** Finished tasks of a spider, each with `lines` log lines, the first three with one item each; their ids. */
export async function finishedTasks(m: TestMaster, spiderId: string, count: number, lines = 2): Promise<string[]> {
  const db = m.master.store.db;
  const now = Date.now() - 60_000;
  const ids = Array.from({ length: count }, () => newId());
  const base = { spider_id: spiderId, node_id: newId(), status: 'finished', run_type: 'random', type: 'spider' };
  await insertRows(
    db,
    'tasks',
    ids.map((id, i) => ({ ...base, id, create_ts: now + i, log_lines: lines, result_count: i < 3 ? 1 : 0 })),
  );
  const logs = ids.flatMap((id) =>
    Array.from({ length: lines }, (_, k) => ({ task_id: id, line_no: k + 1, msg: `line ${k}`, is_error: 0 })),
  );
  await insertRows(db, 'task_logs', logs);
  for (const id of ids.slice(0, 3))
    await insertRow(db, 'results', { collection: 'c', task_id: id, spider_id: spiderId, data: '{}', create_ts: now });
  return ids;
}

/** Rows of `table` whose `column` is `value`. */
export async function countRows(
  m: TestMaster,
  table: 'tasks' | 'task_logs' | 'results' | 'spider_purges',
  column: string,
  value: string,
): Promise<number> {
  const r = await sql<{
    n: number;
  }>`SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${value}`.execute(m.master.store.db);
  return Number(r.rows[0].n);
}

/** Log lines and items of these tasks still stored. */
async function outputOf(m: TestMaster, taskIds: string[]): Promise<number> {
  const db = m.master.store.db;
  let n = 0;
  for (const table of ['task_logs', 'results'] as const) {
    const r = await db
      .selectFrom(table)
      .select((e) => e.fn.countAll().as('n'))
      .where('task_id', 'in', taskIds)
      .executeTakeFirstOrThrow();
    n += Number(r.n);
  }
  return n;
}

/** The deleted spider's tasks, their log lines and items are all gone, and so is its purge record. */
export const purged = (m: TestMaster, spiderId: string, taskIds: string[]) =>
  waitFor(`spider ${spiderId} purged`, async () => {
    if (await countRows(m, 'tasks', 'spider_id', spiderId)) return false;
    if (await countRows(m, 'spider_purges', 'spider_id', spiderId)) return false;
    return (await outputOf(m, taskIds)) === 0;
  });

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import Database from 'better-sqlite3';
import { newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRows } from './seed-rows.ts';
import { makeSpider } from './tasks.helpers.ts';
import { openLogIndexWriter, TASKS_BEHIND } from '../src/features/tasks/log-index.store.ts';
import { logIndexFile } from '../src/features/tasks/log-index-file.store.ts';

// The log index and its list of tasks behind exist on SQLite only (PostgreSQL searches the lines themselves).
describe.runIf(ENGINE === 'sqlite')('the log indexer with nothing to do', () => {
  let m: TestMaster;
  beforeAll(async () => {
    m = await startTestMaster({ embeddedNode: false, logIndexIdleMs: 20 });
  });
  afterAll(async () => {
    await m?.close();
  });

  const db = () => m.master.store.db;
  const listed = async () =>
    (await sql<{ task_id: string }>`SELECT task_id FROM task_log_behind`.execute(db())).rows.map((r) => r.task_id);
  const indexedLine = (taskId: string): number => {
    const ix = new Database(logIndexFile(m.master.store.location), { readonly: true, fileMustExist: true });
    try {
      const row = ix.prepare('SELECT indexed_line FROM task_log_search WHERE task_id = ?').get(taskId);
      return (row as { indexed_line: number } | undefined)?.indexed_line ?? 0;
    } finally {
      ix.close();
    }
  };

  /** Stores lines from+1 … to of a task and counts them in, as the ingest does. */
  async function addLines(taskId: string, from: number, to: number): Promise<void> {
    const rows = [];
    for (let n = from + 1; n <= to; n++) rows.push({ task_id: taskId, line_no: n, msg: `line ${n}`, is_error: 0 });
    await insertRows(db(), 'task_logs', rows);
    await db().updateTable('tasks').set({ log_lines: to }).where('id', '=', taskId).execute();
  }

  it('reads a list of the tasks behind, not the whole tasks table', () => {
    const conn = openLogIndexWriter(m.master.store.location);
    try {
      const plan = (conn.prepare(`EXPLAIN QUERY PLAN ${TASKS_BEHIND}`).all(16) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n');
      expect(plan).toMatch(/SCAN b\b/);
      expect(plan).toMatch(/SEARCH t USING INDEX sqlite_autoindex_tasks_1 \(id=\?\)/);
      expect(plan).not.toMatch(/SCAN t\b/);
    } finally {
      conn.close();
    }
  });

  it('lists a task while it has lines to index, and indexes lines that come later', async () => {
    const spiderId = await makeSpider(m, 'behind', 'echo x');
    const now = Date.now();
    const quiet = Array.from({ length: 50 }, (_, i) => ({
      id: newId(),
      spider_id: spiderId,
      node_id: newId(),
      status: 'finished',
      run_type: 'random',
      create_ts: now + i,
    }));
    await insertRows(db(), 'tasks', quiet);
    const taskId = newId();
    await insertRows(db(), 'tasks', [{ ...quiet[0], id: taskId, status: 'running', create_ts: now + 99 }]);
    expect(await listed()).toEqual([]);

    await addLines(taskId, 0, 30);
    expect(await listed()).toEqual([taskId]);
    await vi.waitFor(async () => expect(await listed()).toEqual([]), { timeout: 20_000, interval: 20 });
    expect(indexedLine(taskId)).toBe(30);

    await addLines(taskId, 30, 45);
    await vi.waitFor(() => expect(indexedLine(taskId)).toBe(45), { timeout: 20_000, interval: 20 });
    await vi.waitFor(async () => expect(await listed()).toEqual([]), { timeout: 20_000, interval: 20 });
  });
});

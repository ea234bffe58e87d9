import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { TestMaster } from '../harness.ts';

/** GET /api/tasks/:id/log with a keyword: the line numbers of the page, the total and whether it is a lower bound. */
export async function searchLog(m: TestMaster, taskId: string, keyword: string, page_num = 1, page_size = 1000) {
  const r = await m.api('GET', `/tasks/${taskId}/log`, { query: { keyword, page_num, page_size } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return {
    lines: (r.body.data as { line_no: number }[]).map((l) => l.line_no),
    total: r.body.total as number,
    partial: (r.body as { total_partial?: boolean }).total_partial,
  };
}

/** The line numbers a plain scan of the task's lines finds (LIKE on SQLite, ILIKE on PostgreSQL). */
export async function scannedLines(
  db: Kysely<any>,
  engine: 'sqlite' | 'postgres',
  taskId: string,
  keyword: string,
): Promise<number[]> {
  const pattern = `%${keyword.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
  const cond = engine === 'postgres' ? sql`msg ilike ${pattern}` : sql`msg like ${pattern} escape '\\'`;
  const { rows } = await sql<{
    line_no: number;
  }>`SELECT line_no FROM task_logs WHERE task_id = ${taskId} AND ${cond} ORDER BY line_no`.execute(db);
  return rows.map((r) => Number(r.line_no));
}

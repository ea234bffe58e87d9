import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';

/**
 * GET /api/tasks/:id/log?keyword=…: matches served by the trigram index must equal what a plain scan of the
 * task's lines finds (LIKE on SQLite, ILIKE on PostgreSQL), page by page; a search past its budget says its total
 * is a lower bound; on SQLite a search runs off the main thread.
 */
let m: TestMaster;
let spiderId = '';

const SAMPLE = [
  'Hello World',
  'HELLO again',
  'say hello',
  '100% done',
  '100 percent done',
  'file a_b.txt',
  'file axb.txt',
  'path C:\\temp\\x',
  'path C:/temp/x',
  'Größe über alles',
  'GRÖSSE ÜBER ALLES',
  '日本語のログ行',
  'rocket 🚀 launched',
  'kelvin \u212A unit',
  'kelvin k unit',
  'quote "inside" here',
  'ok',
];

beforeAll(async () => {
  m = await startTestMaster();
  const db = m.master.store.db;
  const owner = (await db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow())
    .id;
  spiderId = newId();
  await insertRow(db, 'spiders', { id: spiderId, owner_id: owner });
}, 60_000);
afterAll(async () => {
  await m?.close();
});

/** A task whose log holds `lines` (line numbers from 1), written straight into the store. */
async function seedTask(lines: string[]): Promise<string> {
  const db = m.master.store.db;
  const id = newId();
  await insertRow(db, 'tasks', { id, spider_id: spiderId, status: 'finished', log_lines: lines.length });
  const rows = lines.map((msg, i) => ({ task_id: id, line_no: i + 1, msg, is_error: 0 }));
  await insertRows(db, 'task_logs', rows, 2000);
  return id;
}

/** The line numbers a plain scan finds: the query the master ran before it had an index. */
async function scanned(taskId: string, keyword: string): Promise<number[]> {
  const pattern = `%${keyword.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
  const cond = ENGINE === 'postgres' ? sql`msg ilike ${pattern}` : sql`msg like ${pattern} escape '\\'`;
  const { rows } = await sql<{
    line_no: number;
  }>`SELECT line_no FROM task_logs WHERE task_id = ${taskId} AND ${cond} ORDER BY line_no`.execute(m.master.store.db);
  return rows.map((r) => Number(r.line_no));
}

async function search(taskId: string, keyword: string, page_num = 1, page_size = 1000) {
  const r = await m.api('GET', `/tasks/${taskId}/log`, { query: { keyword, page_num, page_size } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return {
    lines: (r.body.data as { line_no: number }[]).map((l) => l.line_no),
    total: r.body.total as number,
    partial: (r.body as { total_partial?: boolean }).total_partial,
  };
}

describe('log search', () => {
  it('finds exactly the lines a plain scan finds: case, LIKE metacharacters, short keywords, multibyte text', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => SAMPLE[i % SAMPLE.length] + ` #${i}`);
    const taskId = await seedTask(lines);
    const keywords = [
      'hello',
      'HeLLo',
      'll',
      'o',
      '%',
      '0% d',
      '_',
      'a_b',
      '\\',
      ':\\temp',
      'größe',
      'GRÖSSE',
      'über',
      '日本',
      '日本語',
      '🚀',
      '🚀 la',
      'kelvin k',
      '"inside"',
      'absent-word',
      '#1',
    ];
    for (const keyword of keywords) {
      const expected = await scanned(taskId, keyword);
      const got = await search(taskId, keyword);
      expect({ keyword, lines: got.lines, total: got.total }).toEqual({
        keyword,
        lines: expected,
        total: expected.length,
      });
      expect(got.partial).toBe(false);
    }
  });

  it('pages through the matches in line order, each page as the whole list cut', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? `Fetched page ${i}` : `parsed item ${i}`));
    const taskId = await seedTask(lines);
    const all = await scanned(taskId, 'fetched');
    expect(all.length).toBe(715);
    const pages: number[] = [];
    for (let p = 1; p <= Math.ceil(all.length / 100); p++) {
      const got = await search(taskId, 'fetched', p, 100);
      expect(got.total).toBe(all.length);
      pages.push(...got.lines);
    }
    expect(pages).toEqual(all);
    expect((await search(taskId, 'fetched', 99, 100)).lines).toEqual([]);
    // A keyword on both sides of a deleted task stays with its own task.
    const other = await seedTask(lines.slice(0, 50));
    expect((await search(other, 'fetched')).total).toBe(8);
    await m.api('DELETE', `/tasks/${other}`);
    expect((await search(taskId, 'fetched')).total).toBe(all.length);
  });

  describe('on a long log', () => {
    let bigTask = '';
    const LINES = 120_000;
    beforeAll(async () => {
      bigTask = await seedTask(
        Array.from({ length: LINES }, (_, i) => `2026-11-23 10:00:00 [scrapy.core] INFO: Crawled page ${i} (200)`),
      );
    }, 120_000);

    it.runIf(ENGINE === 'sqlite')('answers other requests while a search runs', async () => {
      await search(bigTask, 'zz'); // the worker thread is started
      let settled = false;
      const slow = search(bigTask, 'in', 2000, 50).finally(() => (settled = true));
      let answeredMeanwhile = 0;
      while (!settled) {
        const v = await m.api('GET', '/version');
        expect(v.status).toBe(200);
        if (!settled) answeredMeanwhile++;
      }
      const found = await slow;
      expect(found.total).toBe(LINES);
      expect(answeredMeanwhile).toBeGreaterThan(0);
    });

    it('marks the total as a lower bound when the budget runs out', async () => {
      await m.restart({ logSearchBudgetMs: 1 });
      const got = await search(bigTask, 'crawled', 1, 20);
      expect(got.partial).toBe(true);
      expect(got.total).toBeLessThan(LINES);
      expect(got.total).toBeGreaterThanOrEqual(got.lines.length);
      if (got.lines.length) expect(got.lines).toEqual(Array.from({ length: got.lines.length }, (_, i) => i + 1));
      await m.restart();
      const full = await search(bigTask, 'crawled', 1, 20);
      expect(full).toEqual({ lines: Array.from({ length: 20 }, (_, i) => i + 1), total: LINES, partial: false });
    });
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';
import { scannedLines, searchLog } from './support/log-search.ts';
import Database from 'better-sqlite3';
import { adoptRetired, indexNextLines, openLogIndexWriter, purgeNext } from '../src/features/tasks/log-index.store.ts';
import { logIndexFile, ownTable } from '../src/features/tasks/log-index-file.store.ts';
import { MATCH_COUNT_CAP } from '../src/features/tasks/log-search.store.ts';
import { everyLineCount, SEARCH_PLANNER_SETTINGS } from '../src/features/tasks/log-search-pg.store.ts';

/**
 * GET /api/tasks/:id/log?keyword=…: matches must equal what a plain scan of the task's lines finds (LIKE on SQLite,
 * ILIKE on PostgreSQL), page by page, whether the SQLite background indexer has indexed the whole log, part of it or
 * none; a deleted task's index entries are removed; a search past its budget says its total is a lower bound; on
 * SQLite a search runs off the main thread.
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

/**
 * A task whose log holds `lines` (line numbers from 1), written straight into the store. As with the ingest, the
 * task's line count covers the lines only once they are stored: the indexer takes a line below the count that is not
 * stored for one the retention removed, and indexes past it.
 */
async function seedTask(lines: string[]): Promise<string> {
  const db = m.master.store.db;
  const id = newId();
  await insertRow(db, 'tasks', { id, spider_id: spiderId, status: 'finished', log_lines: 0 });
  const rows = lines.map((msg, i) => ({ task_id: id, line_no: i + 1, msg, is_error: 0 }));
  await insertRows(db, 'task_logs', rows, 2000);
  await db.updateTable('tasks').set({ log_lines: lines.length }).where('id', '=', id).execute();
  return id;
}

/** The line numbers a plain scan finds: the query the master ran before it had an index. */
const scanned = (taskId: string, keyword: string) => scannedLines(m.master.store.db, ENGINE, taskId, keyword);

/** SQLite: runs a query on the index file, read-only. */
function onIndex<T>(read: (ix: Database.Database) => T): T {
  const ix = new Database(logIndexFile(m.master.store.location), { readonly: true, fileMustExist: true });
  try {
    return read(ix);
  } finally {
    ix.close();
  }
}

/** SQLite: how far the background indexer has indexed the task's log (0: not at all). */
async function indexedLine(taskId: string): Promise<number> {
  const row = onIndex((ix) => ix.prepare('SELECT indexed_line FROM task_log_search WHERE task_id = ?').get(taskId));
  return (row as { indexed_line: number } | undefined)?.indexed_line ?? 0;
}

/** SQLite: the task's search number. */
const seqOf = (taskId: string): number =>
  onIndex((ix) => (ix.prepare('SELECT seq FROM task_log_search WHERE task_id = ?').get(taskId) as { seq: number }).seq);

/** SQLite: waits until the background indexer has indexed every line of the task. */
async function untilIndexed(taskId: string, lines: number): Promise<void> {
  if (ENGINE !== 'sqlite') return;
  await vi.waitFor(async () => expect(await indexedLine(taskId)).toBe(lines), { timeout: 30_000, interval: 50 });
}

/** SQLite: the index entries under a task's search number: shared ones, and whether its own table exists. */
function indexEntries(seq: number): { shared: number; ownTable: boolean } {
  const base = BigInt(seq) << 32n;
  return onIndex((ix) => ({
    shared: (
      ix
        .prepare('SELECT count(*) AS n FROM task_log_fts WHERE rowid BETWEEN ? AND ?')
        .get(base, base + (1n << 32n) - 1n) as { n: number }
    ).n,
    ownTable: !!ix.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(ownTable(seq)),
  }));
}

/** SQLite: index entries of any task that match a keyword (the shared table), and the queue of removals. */
function leftovers(keyword: string): { matches: number; queued: number } {
  return onIndex((ix) => ({
    matches: (
      ix.prepare('SELECT count(*) AS n FROM task_log_fts WHERE task_log_fts MATCH ?').get(`"${keyword}"`) as {
        n: number;
      }
    ).n,
    queued: (ix.prepare('SELECT count(*) AS n FROM task_log_purge').get() as { n: number }).n,
  }));
}

/** SQLite, with the background indexer off: indexes the task up to `upTo`, its own table from line `ownFrom`. */
function indexDirectly(taskId: string, upTo: number, ownFrom: number): void {
  const conn = openLogIndexWriter(m.master.store.location);
  try {
    while (indexNextLines(conn, taskId, 500, upTo, ownFrom) > 0);
  } finally {
    conn.close();
  }
}

const search = (taskId: string, keyword: string, page_num?: number, page_size?: number) =>
  searchLog(m, taskId, keyword, page_num, page_size);

describe('log search', () => {
  it('finds exactly the lines a plain scan finds: case, LIKE metacharacters, short keywords, multibyte text', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => SAMPLE[i % SAMPLE.length] + ` #${i}`);
    const taskId = await seedTask(lines);
    await untilIndexed(taskId, lines.length);
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
    await untilIndexed(taskId, lines.length);
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
    await untilIndexed(other, 50);
    expect((await search(other, 'fetched')).total).toBe(8);
    await m.api('DELETE', `/tasks/${other}`);
    expect((await search(taskId, 'fetched')).total).toBe(all.length);
  });

  it.runIf(ENGINE === 'sqlite')('removes the index entries of a deleted task in the background', async () => {
    const taskId = await seedTask(Array.from({ length: 3000 }, (_, i) => `line ${i}`));
    await untilIndexed(taskId, 3000);
    const seq = seqOf(taskId);
    expect(indexEntries(seq)).toEqual({ shared: 3000, ownTable: false });
    expect((await m.api('DELETE', `/tasks/${taskId}`)).status).toBe(200);
    await vi.waitFor(() => expect(indexEntries(seq)).toEqual({ shared: 0, ownTable: false }), {
      timeout: 30_000,
      interval: 50,
    });
    expect(await indexedLine(taskId)).toBe(0);
  });

  describe.runIf(ENGINE === 'sqlite')('removing a gone task from the index', () => {
    beforeAll(() => m.restart({ logIndexIdleMs: 0 })); // no background indexer until a test restarts with one
    afterAll(() => m.restart());

    it('drops its own table, removes its shared entries, and goes on after a restart in the middle', async () => {
      const lines = Array.from({ length: 3000 }, (_, i) => `removal-word ${i}`);
      const [gone, kept] = [await seedTask(lines), await seedTask(lines)];
      indexDirectly(gone, 3000, 1001);
      indexDirectly(kept, 3000, 1001);
      const seq = seqOf(gone);
      expect(indexEntries(seq)).toEqual({ shared: 1000, ownTable: true });
      expect(leftovers('removal-word')).toEqual({ matches: 2000, queued: 0 });
      expect((await m.api('DELETE', `/tasks/${gone}`)).status).toBe(200);
      // The purge starts as the indexer would, then the master stops half way.
      const conn = openLogIndexWriter(m.master.store.location);
      try {
        expect(adoptRetired(conn, 10)).toBe(1);
        expect(purgeNext(conn, 100)).toBe(1); // its own table, dropped whole
        expect(purgeNext(conn, 100)).toBe(100);
      } finally {
        conn.close();
      }
      expect(indexEntries(seq)).toEqual({ shared: 900, ownTable: false });
      expect(leftovers('removal-word')).toEqual({ matches: 1900, queued: 1 });
      await m.restart(); // with the background indexer
      await vi.waitFor(() => expect(leftovers('removal-word')).toEqual({ matches: 1000, queued: 0 }), {
        timeout: 30_000,
        interval: 50,
      });
      expect(indexEntries(seq)).toEqual({ shared: 0, ownTable: false });
      const expected = await scanned(kept, 'removal-word 25');
      expect(await search(kept, 'removal-word 25')).toEqual({
        lines: expected,
        total: expected.length,
        partial: false,
      });
      await m.restart({ logIndexIdleMs: 0 });
    });

    it('adds nothing for a task deleted while it is being indexed, and removes what it had', async () => {
      const taskId = await seedTask(Array.from({ length: 3000 }, (_, i) => `halfway-word ${i}`));
      indexDirectly(taskId, 1500, 1001);
      const seq = seqOf(taskId);
      expect(indexEntries(seq)).toEqual({ shared: 1000, ownTable: true });
      expect((await m.api('DELETE', `/tasks/${taskId}`)).status).toBe(200);
      indexDirectly(taskId, 3000, 1001);
      expect(await indexedLine(taskId)).toBe(1500);
      await m.restart(); // with the background indexer
      await vi.waitFor(() => expect(leftovers('halfway-word')).toEqual({ matches: 0, queued: 0 }), {
        timeout: 30_000,
        interval: 50,
      });
      expect(indexEntries(seq)).toEqual({ shared: 0, ownTable: false });
      expect(await indexedLine(taskId)).toBe(0);
      await m.restart({ logIndexIdleMs: 0 });
    });

    it('finds the same lines in a log split between the shared table and its own', async () => {
      const lines = Array.from({ length: 5000 }, (_, i) =>
        i % 7 === 0 ? `Fetched page ${i}` : i % 11 === 0 ? `FETCHED again ${i}` : `parsed item ${i}`,
      );
      const taskId = await seedTask(lines);
      indexDirectly(taskId, 4000, 1500);
      for (const keyword of ['fetched', 'page 1499', 'page 1505', 'again', 'item 4999']) {
        const expected = await scanned(taskId, keyword);
        for (const page of [1, 2]) {
          const got = await search(taskId, keyword, page, 1000);
          const lines = expected.slice((page - 1) * 1000, page * 1000);
          expect({ keyword, ...got }).toEqual({ keyword, lines, total: expected.length, partial: false });
        }
      }
    });
  });

  it.runIf(ENGINE === 'sqlite')('finds the same lines when only the first part of the log is indexed', async () => {
    await m.restart({ logIndexIdleMs: 0 }); // no background indexer: this test decides how far the index goes
    try {
      const lines = Array.from({ length: 5000 }, (_, i) =>
        i % 7 === 0 ? `Fetched page ${i}` : i % 11 === 0 ? `FETCHED again ${i}` : `parsed item ${i}`,
      );
      const taskId = await seedTask(lines);
      indexDirectly(taskId, 2345, 100_001);
      expect(await indexedLine(taskId)).toBe(2345);
      for (const keyword of ['fetched', 'Fetched page 23', 'page 2345', 'again', 'ed', 'item 4999']) {
        const expected = await scanned(taskId, keyword);
        const pages: number[] = [];
        for (let p = 1; p <= Math.max(1, Math.ceil(expected.length / 100)); p++) {
          const got = await search(taskId, keyword, p, 100);
          expect({ keyword, total: got.total, partial: got.partial }).toEqual({
            keyword,
            total: expected.length,
            partial: false,
          });
          pages.push(...got.lines);
        }
        expect({ keyword, lines: pages }).toEqual({ keyword, lines: expected });
      }
    } finally {
      await m.restart();
    }
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
      // Page 2 000 of 50 matches ('in' is on every line): lines 99 951–100 000, the count at least that far.
      expect(found.lines).toEqual(Array.from({ length: 50 }, (_, i) => 99_951 + i));
      expect(found.total).toBeGreaterThanOrEqual(100_000);
      expect(answeredMeanwhile).toBeGreaterThan(0);
    });

    // Counting a frequent word reads the task's lines through the primary key: the planner would otherwise scan
    // the table from its start (every other task's lines first) whenever the task is a large share of the store.
    it.runIf(ENGINE === 'postgres')("counts a frequent word by the task's index, not a scan of every log", async () => {
      const db = m.master.store.db;
      await sql`ANALYZE task_logs`.execute(db);
      const plan = await db.transaction().execute(async (trx) => {
        await SEARCH_PLANNER_SETTINGS.execute(trx);
        const c = everyLineCount(trx, { taskId: bigTask, keyword: 'crawled' }, MATCH_COUNT_CAP).compile();
        const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(
          CompiledQuery.raw(`EXPLAIN ${c.sql}`, [...c.parameters]),
        );
        return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan).toMatch(/task_logs_pk/);
    });

    it('marks the total as a lower bound when the budget runs out', async () => {
      await m.restart({ logSearchBudgetMs: 1 });
      const got = await search(bigTask, 'crawled', 1, 20);
      expect(got.partial).toBe(true);
      expect(got.total).toBeLessThan(LINES);
      expect(got.total).toBeGreaterThanOrEqual(got.lines.length);
      if (got.lines.length) expect(got.lines).toEqual(Array.from({ length: got.lines.length }, (_, i) => i + 1));
      await m.restart();
    });

    it('stops counting a word on every line once its page is found, and still finds a page further on', async () => {
      const first = await search(bigTask, 'crawled', 1, 20);
      expect(first.lines).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(first.partial).toBe(true);
      expect(first.total).toBeGreaterThanOrEqual(MATCH_COUNT_CAP);
      expect(first.total).toBeLessThan(LINES);
      const far = await search(bigTask, 'crawled', 5_500, 20);
      expect(far.lines).toEqual(Array.from({ length: 20 }, (_, i) => 109_981 + i));
      expect(far.total).toBeGreaterThanOrEqual(110_000);
      // The last page: every match counted, the total exact.
      const last = await search(bigTask, 'crawled', 6_000, 20);
      expect(last).toEqual({ lines: Array.from({ length: 20 }, (_, i) => 119_981 + i), total: LINES, partial: false });
      // A word on fewer lines than the cap is counted whole.
      const rare = await search(bigTask, 'page 11999', 1, 20);
      const rareLines = [12_000, ...Array.from({ length: 10 }, (_, i) => 119_991 + i)];
      expect(rare).toEqual({ lines: rareLines, total: 11, partial: false });
    });
  });
});

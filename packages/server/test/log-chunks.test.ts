import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';
import { scannedLines, searchLog } from './support/log-search.ts';
import { deleteTaskLogs } from '../src/features/database/database.store.ts';
import {
  CHUNK_LINES,
  chunkIndexExists,
  indexNextChunks,
  INDEXER_LOCK,
} from '../src/features/tasks/log-chunks.store.ts';

/**
 * PostgreSQL's chunk index of long task logs: a search answers exactly what reading every line answers, whether
 * the background indexer reached the end of the log, part of it or nothing; it reads only the chunks the index
 * names; a task's chunks go with the task or with its lines; a log that grows is indexed by whole chunks as it
 * grows, and its task leaves the list of tasks behind once caught up.
 */
let m: TestMaster;
let spiderId = '';
const db = () => m.master.store.db;

/** Logs shorter than this are never indexed (the migration's trigger). */
const INDEXED_FROM = 20_000;

beforeAll(async () => {
  if (ENGINE !== 'postgres') return;
  m = await startTestMaster({ logIndexIdleMs: 0 }); // no background indexer until a test restarts with one
  const owner = (await db().selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow())
    .id;
  spiderId = newId();
  await insertRow(db(), 'spiders', { id: spiderId, owner_id: owner });
}, 60_000);
afterAll(async () => {
  await m?.close();
});

const SAMPLE = [
  'Hello World',
  'say HELLO again',
  '100% done',
  'file a_b.txt',
  'path C:\\temp\\x',
  'Größe über alles',
  '日本語のログ行',
  'rocket 🚀 launched',
  'quote "inside" here',
  'a line holding\na newline, hello', // its chunk's text does not split back into its lines
];

/** A line of the long test logs: mostly routine, now and then a sample line, once in a while a rare error. */
function line(i: number): string {
  if (i % 5000 === 777) return `ERROR ConnectionRefusedError at ${i}`;
  if (i % 97 === 0) return `${SAMPLE[(i / 97) % SAMPLE.length]} #${i}`;
  return `2026-11-23 10:00:00 [scrapy.core.engine] DEBUG: Crawled (200) <GET https://example.com/p/${i}>`;
}

/** Appends lines from..to (1-based) to a task's log, the count raised after they are stored, as the ingest does. */
async function appendLines(taskId: string, from: number, to: number): Promise<void> {
  const rows = Array.from({ length: to - from + 1 }, (_, k) => ({
    task_id: taskId,
    line_no: from + k,
    msg: line(from + k),
    is_error: 0,
  }));
  await insertRows(db(), 'task_logs', rows, 2000);
  await db().updateTable('tasks').set({ log_lines: to }).where('id', '=', taskId).execute();
}

async function seedTask(lines: number): Promise<string> {
  const id = newId();
  await insertRow(db(), 'tasks', { id, spider_id: spiderId, status: 'finished', log_lines: 0 });
  await appendLines(id, 1, lines);
  return id;
}

/** The line numbers reading every line finds. */
const scanned = (taskId: string, keyword: string) => scannedLines(db(), 'postgres', taskId, keyword);
const search = (taskId: string, keyword: string, page_num?: number, page_size?: number) =>
  searchLog(m, taskId, keyword, page_num, page_size);

/** The task's chunks (first lines) and whether it is on the list of tasks behind. */
async function chunkState(taskId: string): Promise<{ chunks: number[]; behind: boolean }> {
  const { rows } = await sql<{ first_line: number }>`SELECT first_line FROM task_log_chunks
    WHERE task_id = ${taskId} ORDER BY first_line`.execute(db());
  const { rows: behind } = await sql`SELECT 1 FROM task_log_chunks_behind WHERE task_id = ${taskId}`.execute(db());
  return { chunks: rows.map((r) => r.first_line), behind: behind.length > 0 };
}

/** Chunk first lines 1, 1 + CHUNK_LINES, … for the whole chunks of `lines` lines. */
const wholeChunks = (lines: number) =>
  Array.from({ length: Math.floor(lines / CHUNK_LINES) }, (_, k) => 1 + k * CHUNK_LINES);

/** Runs indexer rounds directly (the background indexer off) until nothing is behind or `lines` more are indexed. */
async function indexRounds(maxLines = Infinity): Promise<void> {
  let indexed = 0;
  while (indexed < maxLines) {
    const round = await indexNextChunks(db(), Math.min(1024, maxLines - indexed));
    if (round.kind === 'idle') return;
    if (round.kind === 'indexed') indexed += round.lines;
  }
}

const KEYWORDS = [
  'connectionrefused',
  'HELLO',
  'a_b',
  '100%',
  ':\\temp',
  'GRÖSSE',
  '日本語',
  '🚀 la',
  '"inside"',
  'p/2',
];

async function expectSameAsScan(taskId: string): Promise<void> {
  for (const keyword of KEYWORDS) {
    const expected = await scanned(taskId, keyword);
    const got = await search(taskId, keyword);
    expect({ keyword, ...got }).toEqual({
      keyword,
      lines: expected.slice(0, 1000),
      total: expected.length,
      partial: false,
    });
  }
}

describe.runIf(ENGINE === 'postgres')('the chunk index of long logs (PostgreSQL)', () => {
  it('is there on this server (pg_trgm and btree_gin)', async () => {
    expect(await chunkIndexExists(db())).toBe(true);
  });

  it('finds what reading every line finds, with the index at the end, part way or nowhere', async () => {
    const lines = INDEXED_FROM + 1000 + 57; // the last lines make no whole chunk
    const taskId = await seedTask(lines);
    expect(await chunkState(taskId)).toEqual({ chunks: [], behind: true });
    await expectSameAsScan(taskId);
    await indexRounds(50 * CHUNK_LINES);
    expect((await chunkState(taskId)).chunks).toEqual(wholeChunks(50 * CHUNK_LINES));
    await expectSameAsScan(taskId);
    await indexRounds();
    expect(await chunkState(taskId)).toEqual({ chunks: wholeChunks(lines), behind: false });
    // Chunks with the newline line are read line by line, the others from their text: both kinds are there.
    const { rows: kinds } = await sql<{ plain: boolean; n: number }>`SELECT plain, count(*)::int AS n
      FROM task_log_chunks WHERE task_id = ${taskId} GROUP BY plain ORDER BY plain`.execute(db());
    expect(kinds.map((k) => k.plain)).toEqual([false, true]);
    await expectSameAsScan(taskId);
    // Paging: each page is the whole list cut, also across the end of the index.
    const all = await scanned(taskId, 'hello');
    const paged: number[] = [];
    for (let p = 1; p <= Math.ceil(all.length / 7); p++) paged.push(...(await search(taskId, 'hello', p, 7)).lines);
    expect(paged).toEqual(all);
  });

  it('reads only the chunks the index names for a word of three characters or more', async () => {
    const taskId = await seedTask(INDEXED_FROM);
    await indexRounds();
    const rare = await scanned(taskId, 'ConnectionRefused');
    expect(rare).toEqual([777, 5777, 10777, 15777]);
    // The chunk holding line 5777 is changed so the index no longer names it: the search does not read that line.
    const first = Math.floor((5777 - 1) / CHUNK_LINES) * CHUNK_LINES + 1;
    await sql`UPDATE task_log_chunks SET body = 'nothing here' WHERE task_id = ${taskId} AND first_line = ${first}`.execute(
      db(),
    );
    expect(await search(taskId, 'connectionrefused')).toEqual({
      lines: [777, 10777, 15777],
      total: 3,
      partial: false,
    });
    // Two characters make no trigram: every line is read.
    expect((await search(taskId, '57')).lines).toEqual(await scanned(taskId, '57'));
  });

  it('indexes a growing log by whole chunks; the task leaves the list once caught up and comes back with more', async () => {
    const taskId = await seedTask(INDEXED_FROM + 100);
    await indexRounds();
    const caughtUp = wholeChunks(INDEXED_FROM + 100);
    expect(await chunkState(taskId)).toEqual({ chunks: caughtUp, behind: false });
    await appendLines(taskId, INDEXED_FROM + 101, INDEXED_FROM + 400);
    expect((await chunkState(taskId)).behind).toBe(true);
    await indexRounds();
    expect(await chunkState(taskId)).toEqual({ chunks: wholeChunks(INDEXED_FROM + 400), behind: false });
    await expectSameAsScan(taskId);
    // A short log is never listed.
    const short = await seedTask(INDEXED_FROM - 1);
    expect(await chunkState(short)).toEqual({ chunks: [], behind: false });
  });

  it('drops the chunks with the task or with its lines; a task whose lines went leaves the list', async () => {
    const [deleted, retained, behind] = [
      await seedTask(INDEXED_FROM),
      await seedTask(INDEXED_FROM),
      await seedTask(INDEXED_FROM),
    ];
    await indexRounds();
    await appendLines(behind, INDEXED_FROM + 1, INDEXED_FROM + 1000);
    expect((await m.api('DELETE', `/tasks/${deleted}`)).status).toBe(200);
    expect(await chunkState(deleted)).toEqual({ chunks: [], behind: false });
    await deleteTaskLogs(m.master.store, [retained, behind]);
    expect(await chunkState(retained)).toEqual({ chunks: [], behind: false });
    expect(await chunkState(behind)).toEqual({ chunks: [], behind: true });
    await indexRounds();
    expect(await chunkState(behind)).toEqual({ chunks: [], behind: false });
    expect(await search(behind, 'connectionrefused')).toEqual({ lines: [], total: 0, partial: false });
  });

  it('the background indexer catches up by itself, one master at a time', async () => {
    const taskId = await seedTask(INDEXED_FROM + 300);
    await m.restart({ logIndexIdleMs: 50 });
    try {
      await vi.waitFor(
        async () =>
          expect(await chunkState(taskId)).toEqual({ chunks: wholeChunks(INDEXED_FROM + 300), behind: false }),
        { timeout: 60_000, interval: 100 },
      );
    } finally {
      await m.restart({ logIndexIdleMs: 0 });
    }
    // While another master holds the indexer's lock, a round does nothing.
    await appendLines(taskId, INDEXED_FROM + 301, INDEXED_FROM + 700);
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let locked = () => {};
    const lockTaken = new Promise<void>((r) => (locked = r));
    const holder = db()
      .transaction()
      .execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(${INDEXER_LOCK})`.execute(trx);
        locked();
        await released;
      });
    await lockTaken;
    expect(await indexNextChunks(db(), 1024)).toEqual({ kind: 'busy' });
    release();
    await holder;
    await indexRounds();
    expect(await chunkState(taskId)).toEqual({ chunks: wholeChunks(INDEXED_FROM + 700), behind: false });
  });
});

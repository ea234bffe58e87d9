import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ID_HEADER, NODE_KEY_HEADER } from '@crawldeck/shared';
import { sql } from 'kysely';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { handShipping } from './ship.helpers.ts';
import { errorLinesQuery } from '../src/features/tasks/tasks.store.ts';

const KEY = 'exactly-once-key';
let m: TestMaster;
let sim: SimNode;

beforeAll(async () => {
  // A batch that starts beyond what is stored is answered with the stored offset after a short wait.
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, ingestWaitMs: 50 });
  sim = new SimNode({ master: m.url, key: KEY, name: 'exactly-once', maxRunners: 100 });
  await sim.connect();
});
afterAll(async () => {
  sim?.close();
  await m?.close();
});

const { simTask, ship } = handShipping(
  () => m,
  () => sim,
);

async function items(taskId: string): Promise<Record<string, unknown>[]> {
  const r = await m.api('GET', `/tasks/${taskId}/results`, { query: { page_size: 1000 } });
  expect(r.status).toBe(200);
  return r.body.data as Record<string, unknown>[];
}

const lines = (from: number, n: number) => Array.from({ length: n }, (_, i) => `line ${from + i + 1}`);

describe('exactly-once ingest of batches that overlap, skip ahead or hold odd text', () => {
  it('refuses a malformed batch with a 400 and a message, storing nothing', async () => {
    const taskId = await simTask(await makeSpider(m, 'malformed-batch', 'echo sim'));
    const post = (body: unknown) =>
      fetch(`${m.url}/api/node-api/tasks/${taskId}/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [NODE_KEY_HEADER]: sim.key, [NODE_ID_HEADER]: sim.nodeId },
        body: JSON.stringify(body),
      });
    for (const body of [{ from: -1, lines: ['a'] }, { from: 0, lines: [{}] }, { from: 0 }]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/body/);
    }
    // The bound on a line is counted in UTF-16 units: a line of 600,000 emoji (1.2M units) is over 1 MiB.
    const tooLong = await post({ from: 0, lines: ['😀'.repeat(600_000)] });
    expect(tooLong.status).toBe(400);
    expect(await allLog(m, taskId)).toEqual([]);
  });

  it('stores log lines once when a batch overlaps what is stored, and refuses a gap', async () => {
    const taskId = await simTask(await makeSpider(m, 'overlap-logs', 'echo sim'));
    expect(await ship('logs', taskId, 0, lines(0, 100))).toBe(100);
    expect(await ship('logs', taskId, 50, lines(50, 100))).toBe(150);
    expect(await ship('logs', taskId, 0, lines(0, 150))).toBe(150);
    // Lines 201… cannot be stored before 151…200: the answer is the stored offset, nothing is stored.
    expect(await ship('logs', taskId, 200, lines(200, 10))).toBe(150);
    expect(await ship('logs', taskId, 150, lines(150, 60))).toBe(210);
    const log = await allLog(m, taskId);
    expect(log.map((l) => l.msg)).toEqual(lines(0, 210));
    expect(log.map((l) => l.line_no)).toEqual(Array.from({ length: 210 }, (_, i) => i + 1));
    expect((await m.api('GET', `/tasks/${taskId}`)).body.data.log_count).toBe(210);
  });

  it('keeps every character of a line (tabs, backslashes, \\N, carriage returns), shows NUL as U+FFFD, cuts an overlong line', async () => {
    const taskId = await simTask(await makeSpider(m, 'odd-text', 'echo sim'));
    const odd = [
      'tab\there',
      'back\\slash \\N \\\\N \\t',
      '\\N',
      'cr\rinside',
      'nul\u0000byte',
      'ünïcødé 😀',
      '',
      'x'.repeat(70_000),
    ];
    expect(await ship('logs', taskId, 0, odd)).toBe(odd.length);
    const log = await allLog(m, taskId);
    expect(log.slice(0, 7).map((l) => l.msg)).toEqual([...odd.slice(0, 4), 'nul\uFFFDbyte', ...odd.slice(5, 7)]);
    expect(log[7].msg.startsWith('x'.repeat(65 * 1024))).toBe(true);
    expect(log[7].msg.endsWith('[line cut: 70000 chars]')).toBe(true);
  });

  it('flags the last line of a traceback whose frame line came in the batch before', async () => {
    const taskId = await simTask(await makeSpider(m, 'traceback', 'echo sim'));
    await ship('logs', taskId, 0, ['Traceback (most recent call last):', '  File "spider.py", line 3, in parse']);
    await ship('logs', taskId, 2, ['QuotaExhausted: no more pages', 'done']);
    const log = await allLog(m, taskId);
    expect(log.map((l) => l.is_error)).toEqual([true, false, true, false]);
    expect((await m.api('GET', `/tasks/${taskId}`)).body.data.error_log_count).toBe(2);
  });

  it("lists a task's error lines from its error index (on PostgreSQL an index of the error lines alone)", async () => {
    const taskId = await simTask(await makeSpider(m, 'error-index', 'echo sim'));
    await ship('logs', taskId, 0, ['ok', 'KeyError: title', 'ok', 'an error here']);
    await ship('logs', taskId, 4, ['ok', 'Traceback (most recent call last):']);
    const errors = await m.api('GET', `/tasks/${taskId}/error-log`);
    expect(errors.body.data.map((l: { line_no: number }) => l.line_no)).toEqual([2, 4, 6]);
    if (ENGINE !== 'postgres') return;
    // The query the error log runs, planned without the option of reading the whole table.
    const plan = await m.master.store.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      return errorLinesQuery(trx, taskId, 100).explain();
    });
    expect(JSON.stringify(plan)).toContain('task_logs_errors_idx');
  });

  it('stores items once when a batch overlaps, skips what is not an object, drops the fields the store sets', async () => {
    const taskId = await simTask(await makeSpider(m, 'overlap-items', 'echo sim'));
    const batch = [
      JSON.stringify({ n: 1, text: 'tab\tand\\backslash and \\N' }),
      'not json',
      JSON.stringify({ n: 2, _id: 'mine', task_id: 'theirs' }),
      '[1, 2]',
      '{"n": 3, "big": 1e400}',
      '{"n": 4, "half": "\\ud800", "emoji": "😀"}',
    ];
    expect(await ship('items', taskId, 0, batch)).toBe(6);
    expect(await ship('items', taskId, 4, [...batch.slice(4), '{"n": 5}'])).toBe(7);
    expect(await ship('items', taskId, 9, ['{"n": 9}'])).toBe(7);
    const got = await items(taskId);
    expect(got.map((i) => i.n)).toEqual([1, 2, 3, 4, 5]);
    expect(got[0].text).toBe('tab\tand\\backslash and \\N');
    expect(got[1]._id).not.toBe('mine');
    expect(got[1].task_id).toBe(taskId);
    expect(got[2].big).toBeNull();
    expect(got[3].half).toBe('\ud800');
    expect(got[3].emoji).toBe('😀');
    expect((await m.api('GET', `/tasks/${taskId}`)).body.data.result_count).toBe(5);
  });

  it('deduplicates items by field across overlapping batches (ignore)', async () => {
    const spider = await makeSpider(
      m,
      'dedup-items',
      'echo sim',
      {},
      {
        is_dedup: true,
        dedup_field: 'url',
        dedup_method: 'ignore',
        col: 'exactly_once_dedup',
      },
    );
    const taskId = await simTask(spider);
    const batch = ['a', 'b', 'a', 'c'].map((url, n) => JSON.stringify({ url, n }));
    expect(await ship('items', taskId, 0, batch)).toBe(4);
    expect(await ship('items', taskId, 2, [...batch.slice(2), JSON.stringify({ url: 'd', n: 4 })])).toBe(5);
    const got = await items(taskId);
    expect(got.map((i) => [i.url, i.n])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 3],
      ['d', 4],
    ]);
  });

  it('stores a batch of more items than one statement takes once, in order, when it is sent again and overlapped', async () => {
    const taskId = await simTask(await makeSpider(m, 'many-items', 'echo sim'));
    const batch = Array.from({ length: 1300 }, (_, n) => (n % 100 === 7 ? 'not json' : JSON.stringify({ n })));
    expect(await ship('items', taskId, 0, batch)).toBe(1300);
    expect(await ship('items', taskId, 0, batch)).toBe(1300);
    expect(await ship('items', taskId, 1000, [...batch.slice(1000), '{"n":1300}'])).toBe(1301);
    const got: number[] = [];
    for (let page = 1; got.length < 1288; page++) {
      const r = await m.api('GET', `/tasks/${taskId}/results`, { query: { page_size: 1000, page_num: page } });
      got.push(...(r.body.data as { n: number }[]).map((i) => i.n));
    }
    const want = [...Array(1301).keys()].filter((n) => n % 100 !== 7);
    expect(got).toEqual(want);
    expect((await m.api('GET', `/tasks/${taskId}`)).body.data.result_count).toBe(want.length);
  });

  it("deduplicates items by field across batches (overwrite): the later item takes the key's place and counts", async () => {
    const spider = await makeSpider(
      m,
      'overwrite-items',
      'echo sim',
      {},
      { is_dedup: true, dedup_field: 'url', dedup_method: 'overwrite', col: 'exactly_once_overwrite' },
    );
    const taskId = await simTask(spider);
    expect(
      await ship(
        'items',
        taskId,
        0,
        ['a', 'b'].map((url, n) => JSON.stringify({ url, n })),
      ),
    ).toBe(2);
    const next = [JSON.stringify({ url: 'b', n: 2 }), JSON.stringify({ url: 'c', n: 3 }), JSON.stringify({ n: 4 })];
    expect(await ship('items', taskId, 2, next)).toBe(5);
    const got = await items(taskId);
    expect(got.map((i) => [i.url, i.n])).toEqual([
      ['a', 0],
      ['b', 2],
      ['c', 3],
      [undefined, 4],
    ]);
    expect((await m.api('GET', `/tasks/${taskId}`)).body.data.result_count).toBe(5);
  });

  it('a task row deleted by itself takes its log lines and items with it', async () => {
    const taskId = await simTask(await makeSpider(m, 'delete-output', 'echo sim'));
    expect(await ship('logs', taskId, 0, lines(0, 30))).toBe(30);
    expect(await ship('items', taskId, 0, ['{"n": 1}', '{"n": 2}'])).toBe(2);
    const db = m.master.store.db;
    const count = async (table: 'task_logs' | 'results') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((e) => e.fn.countAll().as('n'))
            .where('task_id', '=', taskId)
            .executeTakeFirst()
        )?.n,
      );
    expect([await count('task_logs'), await count('results')]).toEqual([30, 2]);
    // No lines or items deleted first, as the task deletion does: the store itself takes them with the task row.
    await db.deleteFrom('tasks').where('id', '=', taskId).execute();
    expect([await count('task_logs'), await count('results')]).toEqual([0, 0]);
  });
});

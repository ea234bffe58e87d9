import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import {
  addDataSource,
  generatorSpider,
  mixedItem,
  openTarget,
  type TargetDb,
  type TargetKind,
} from './datasources.helpers.ts';
import { allLog, makeSpider, runSpider, waitTask } from './tasks.helpers.ts';

// Spiders writing into real PostgreSQL and real MariaDB through the master: table and columns made from the
// items, exact counts, dedupe both ways, the Results tab and every download format read back from the target.
let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
}, 60_000);
afterAll(async () => {
  await m?.close();
});

/** Waits for the task to end; a timeout tells the task, its log and its target's error. */
async function ended(taskId: string, timeoutMs = 120_000) {
  try {
    return await waitTask(m, taskId, ['finished', 'error', 'cancelled', 'abnormal'], timeoutMs);
  } catch (err) {
    const [task, target, log] = await Promise.all([
      m.api('GET', `/tasks/${taskId}`),
      m.api('GET', `/tasks/${taskId}/data-source`),
      allLog(m, taskId),
    ]);
    throw new Error(
      `${(err as Error).message}: ${JSON.stringify({ task: task.body.data, target: target.body.data, log: log.slice(-10) })}`,
    );
  }
}

async function download(taskId: string, format: string): Promise<Response> {
  const r = await fetch(`${m.url}/api/tasks/${taskId}/results/download?format=${format}`, {
    headers: { authorization: `Bearer ${m.adminToken}` },
  });
  expect(r.status).toBe(200);
  return r;
}

describe('data sources as an administrator manages them', () => {
  let target: TargetDb;
  beforeAll(async () => {
    target = await openTarget('postgres');
  });
  afterAll(async () => {
    await target?.drop();
  });

  it('adds, lists (built-in first), keeps the password write-only, tests and deletes', async () => {
    const id = await addDataSource(m, target);
    const list = await m.api('GET', '/data-sources');
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({ _id: '', type: 'builtin' });
    const mine = list.body.data.find((d: { _id: string }) => d._id === id);
    expect(mine).toMatchObject({ type: 'postgres', host: '127.0.0.1', port: 5432, password_set: true, spiders: 0 });
    expect(JSON.stringify(list.body)).not.toContain('unused-with-trust');

    const test = await m.api('POST', '/data-sources-test', { body: { ...target.body, id, password: '' } });
    expect(test.body.data).toMatchObject({ ok: true, error: '' });
    expect(test.body.data.version).toContain('PostgreSQL');

    const renamed = await m.api('POST', `/data-sources/${id}`, { body: { name: 'renamed-pg' } });
    expect(renamed.body.data).toMatchObject({ name: 'renamed-pg', password_set: true });

    const spider = await generatorSpider(m, 'ds-holds', id);
    const refused = await m.api('DELETE', `/data-sources/${id}`);
    expect(refused.status).toBe(409);
    expect(
      (await m.api('POST', `/spiders/${spider}/data-source`, { body: { data_source_id: '', result_table: '' } }))
        .status,
    ).toBe(200);
    expect((await m.api('DELETE', `/data-sources/${id}`)).status).toBe(200);
  });

  it('answers a refused connection with the driver message, for both engines', async () => {
    for (const type of ['postgres', 'mysql']) {
      const r = await m.api('POST', '/data-sources-test', {
        body: { name: 'nowhere', type, host: '127.0.0.1', port: 1, database: 'x', username: 'u' },
      });
      expect(r.status).toBe(200);
      expect(r.body.data.ok).toBe(false);
      expect(r.body.data.error).toContain('ECONNREFUSED');
    }
  });

  it('refuses bad input with 400 and shows data source settings to administrators only', async () => {
    expect((await m.api('PUT', '/data-sources', { body: { ...target.body, port: 70000 } })).status).toBe(400);
    expect((await m.api('PUT', '/data-sources', { body: { ...target.body, host: 'a b' } })).status).toBe(400);
    const normal = await m.createUser('ds-normal');
    expect((await m.api('GET', '/data-sources', { token: normal })).status).toBe(403);
    const choices = await m.api('GET', '/data-sources-choices', { token: normal });
    expect(choices.status).toBe(200);
    expect(Object.keys(choices.body.data[0]).sort()).toEqual(['_id', 'name', 'type']);
  });
});

describe.each(['postgres', 'mysql'] as TargetKind[])('items into %s', (kind) => {
  let target: TargetDb;
  let dsId: string;
  beforeAll(async () => {
    target = await openTarget(kind);
    dsId = await addDataSource(m, target);
  });
  afterAll(async () => {
    await target?.drop();
  });

  const N = 10_000;
  let mixedTask: string;

  it('stores 10k items with mixed and changing fields exactly once, with the task id on every row', async () => {
    const spider = await generatorSpider(m, `mixed-${kind}`, dsId, {}, 'mixed_items');
    [mixedTask] = await runSpider(m, spider, { param: `${N} mixed` });
    const task = await ended(mixedTask, 120_000);
    expect(task).toMatchObject({ status: 'finished', result_count: N });
    const [{ n }] = await target.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM mixed_items WHERE task_id = '${mixedTask}'`,
    );
    expect(Number(n)).toBe(N);
    const info = await m.api('GET', `/tasks/${mixedTask}/data-source`);
    expect(info.body.data).toMatchObject({ data_source_id: dsId, table: 'mixed_items', error: '' });
  }, 180_000);

  it('shows the rows of the target on the Results tab, with the types the fields had', async () => {
    const page = await m.api('GET', `/tasks/${mixedTask}/results`, { query: { page_num: 1, page_size: 20 } });
    expect(page.body.total).toBe(N);
    const expected = (i: number) => {
      const item = mixedItem(i, N);
      if (item.mixed !== undefined) item.mixed = String(item.mixed); // the column became text
      return { ...item, task_id: mixedTask };
    };
    for (const [i, row] of (page.body.data as Record<string, unknown>[]).entries()) {
      const { _id, ...rest } = row;
      expect(typeof _id).toBe('string');
      expect(rest).toEqual(expected(i));
    }
    const late = await m.api('GET', `/tasks/${mixedTask}/results`, { query: { page_num: N / 20, page_size: 20 } });
    expect((late.body.data as Record<string, unknown>[]).map((r) => r.n)).toEqual(
      Array.from({ length: 20 }, (_, k) => N - 20 + k),
    );
    expect(late.body.data[19]).toMatchObject({ late: (N - 1) % 4 === 0, title: `t${N - 1}` });
  });

  it('downloads csv, json, jsonl and xlsx with every row of the target', async () => {
    const rows = await target.query<{ n: number; title: string }>(
      `SELECT n, title FROM mixed_items WHERE task_id = '${mixedTask}' ORDER BY _id`,
    );
    expect(rows).toHaveLength(N);
    const json = (await (await download(mixedTask, 'json')).json()) as Record<string, unknown>[];
    expect(json.map((r) => [r.n, r.title])).toEqual(rows.map((r) => [Number(r.n), r.title]));
    expect(json[3].tags).toEqual(['a', 3, { deep: 3 }]);

    const jsonl = (await (await download(mixedTask, 'jsonl')).text()).trimEnd().split('\n');
    expect(jsonl).toHaveLength(N);
    expect(JSON.parse(jsonl[5])).toMatchObject({ n: 5, emoji: '爬虫 🕷' });

    const csvRes = await download(mixedTask, 'csv');
    expect(csvRes.headers.get('content-disposition')).toContain(`-${mixedTask}.csv"`);
    const csv = (await csvRes.text()).trimEnd().split('\n');
    expect(csv).toHaveLength(N + 1);
    expect(csv[0].split(',').slice(0, 2)).toEqual(['n', 'title']);

    const xlsxRes = await download(mixedTask, 'xlsx');
    expect(xlsxRes.headers.get('content-type')).toContain('spreadsheetml');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.from(await xlsxRes.arrayBuffer()) as unknown as ArrayBuffer);
    const sheet = book.worksheets[0];
    expect(sheet.rowCount).toBe(N + 1);
    expect(sheet.getRow(N + 1).getCell(1).value).toBe(Number(rows[N - 1].n));
    expect(sheet.getRow(2).getCell(2).value).toBe(rows[0].title);
  }, 120_000);

  it('dedupes with ignore (first item kept) and overwrite (last item kept), across tasks', async () => {
    for (const method of ['ignore', 'overwrite']) {
      const table = `dup_${method}`;
      const spider = await generatorSpider(
        m,
        `dup-${method}-${kind}`,
        dsId,
        { is_dedup: true, dedup_field: 'url', dedup_method: method },
        table,
      );
      const [first] = await runSpider(m, spider, { param: '1000 dup' });
      expect(await ended(first, 60_000)).toMatchObject({ status: 'finished' });
      const rows = await target.query<{ url: string; n: number; task_id: string }>(
        `SELECT url, n, task_id FROM ${table} ORDER BY n`,
      );
      expect(rows).toHaveLength(100);
      const ns = rows.map((r) => Number(r.n)).sort((a, b) => a - b);
      expect(ns).toEqual(Array.from({ length: 100 }, (_, i) => (method === 'ignore' ? i : 900 + i)));
      const [second] = await runSpider(m, spider, { param: '1000 dup' });
      const done = await ended(second, 60_000);
      const after = await target.query<{ task_id: string }>(`SELECT task_id FROM ${table}`);
      expect(after).toHaveLength(100);
      if (method === 'ignore') {
        expect(done.result_count).toBe(0);
        expect(new Set(after.map((r) => r.task_id))).toEqual(new Set([first]));
      } else {
        expect(new Set(after.map((r) => r.task_id))).toEqual(new Set([second]));
        expect((await m.api('GET', `/tasks/${second}/results`)).body.total).toBe(100);
      }
    }
  }, 180_000);

  it('stores hostile field names as quoted columns and renames fields named like ours', async () => {
    const item = JSON.stringify({
      'we`ird"name; DROP TABLE x': 1,
      _seq: 'mine',
      _id: 'dropped',
      nested: { a: [1, null] },
    });
    const cmd = `/usr/bin/python3 -c "import os;open(os.environ['CRAWLDECK_ITEMS'],'a').write(os.environ['ITEM']+'\\n')"`;
    const spider = await makeSpider(m, `hostile-${kind}`, cmd, {}, { envs: [{ name: 'ITEM', value: item }] });
    expect(
      (
        await m.api('POST', `/spiders/${spider}/data-source`, {
          body: { data_source_id: dsId, result_table: 'hostile' },
        })
      ).status,
    ).toBe(200);
    const [task] = await runSpider(m, spider);
    expect(await ended(task, 60_000)).toMatchObject({ status: 'finished', result_count: 1 });
    const [row] = (await m.api('GET', `/tasks/${task}/results`)).body.data as Record<string, unknown>[];
    expect(row).toMatchObject({
      'we`ird"name; DROP TABLE x': 1,
      item_seq: 'mine',
      nested: { a: [1, null] },
      task_id: task,
    });
    expect(row._id).not.toBe('dropped');
  }, 60_000);

  it('moves only later tasks when the spider changes its data source', async () => {
    const spider = await generatorSpider(m, `switch-${kind}`, dsId, {}, 'switch_items');
    const [before] = await runSpider(m, spider, { param: '50 mixed' });
    await ended(before, 60_000);
    expect(
      (await m.api('POST', `/spiders/${spider}/data-source`, { body: { data_source_id: '', result_table: '' } }))
        .status,
    ).toBe(200);
    const [after] = await runSpider(m, spider, { param: '30 mixed' });
    await ended(after, 60_000);
    expect((await m.api('GET', `/tasks/${before}/results`)).body.total).toBe(50);
    expect((await m.api('GET', `/tasks/${after}/results`)).body.total).toBe(30);
    expect((await m.api('GET', `/tasks/${after}/data-source`)).body.data).toMatchObject({
      data_source_id: '',
      type: 'builtin',
    });
    const [{ n }] = await target.query<{ n: number }>(`SELECT COUNT(*) AS n FROM switch_items`);
    expect(Number(n)).toBe(50);
  }, 120_000);
});

describe('the built-in store', () => {
  it('still takes items and downloads them in every format', async () => {
    const spider = await makeSpider(
      m,
      'builtin-formats',
      `/usr/bin/python3 -c "import os,json;f=open(os.environ['CRAWLDECK_ITEMS'],'a');[f.write(json.dumps({'k':i,'s':'x%d'%i})+'\\n') for i in range(7)]"`,
    );
    const [task] = await runSpider(m, spider);
    await ended(task, 60_000);
    expect(((await (await download(task, 'json')).json()) as unknown[]).length).toBe(7);
    expect((await (await download(task, 'jsonl')).text()).trimEnd().split('\n')).toHaveLength(7);
    const bom = await fetch(`${m.url}/api/tasks/${task}/results/download?bom=1`, {
      headers: { authorization: `Bearer ${m.adminToken}` },
    });
    expect(new Uint8Array(await bom.arrayBuffer()).slice(0, 3)).toEqual(new Uint8Array([0xef, 0xbb, 0xbf]));
    expect((await m.api('GET', `/tasks/${task}/results/download`, { query: { format: 'pdf' } })).status).toBe(400);
  }, 60_000);
});

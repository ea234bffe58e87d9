import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { newId } from '@crawldeck/shared';
import { stringify } from 'csv-stringify/sync';
import { ENGINE, PG_ADMIN_URL, startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';

/**
 * A task's items downloaded as CSV, JSON and JSON lines come out byte for byte as the export's rules write them
 * (each stored document read by JSON.parse; CSV cells: nothing for null, nested values as JSON, booleans and
 * numbers as JavaScript writes them; JSON written again by JSON.stringify), whatever the stored text holds. On
 * PostgreSQL the download follows its client: a client that stops reading holds the COPY back, one that goes
 * away ends it.
 */
let m: TestMaster;
let db: Kysely<any>;
let spiderId: string;
const T = 1_700_000_000_000;

/** Documents as a spider may print them, stored as printed (the ingest keeps a valid line as it is). */
const NASTY = [
  '{"title": "spaced out", "n" : 1}',
  '{"n":1.0,"title":"a float written 1.0","price":19.90}',
  '{"n":1e2,"big":12345678901234567890,"neg0":-0,"small":1e-7,"exp":1E+21,"frac":0.1,"long":0.30000000000000004}',
  '{"nested":{"b":[1, 2.50,{"c":null}],"a":"x, \\"y\\""},"arr":[ ],"obj":{ }}',
  '{"bool":true,"f":false,"nul":null,"empty":""}',
  '{"uni":"\\u00e9\\u6807\\ud83d\\ude00 标题 😀","slash":"a\\/b"}',
  '{"nul_char":"a\\u0000b","lone":"\\ud800x","rs":"a\\u001eb","us":"\\u001f","soh":"\\u0001"}',
  '{"quote":"say \\"hi\\"","comma":"a,b","nl":"line1\\nline2","cr":"a\\rb","tab":"a\\tb","bs":"back\\\\slash"}',
  '{"crlf": "a line printed with a carriage return"}\r',
  '{"lf":\n"a line break between tokens"}',
  '{"b":"x","1":"an integer key","0":"zero"}',
  '{"d":1,"d":"the last of a repeated key"}',
  '{"__proto__":{"x":1},"p":"proto"}',
  '{"toJSON":"not a function"}',
  '{"formula":"=1+2","plus":"+cmd","at":"@x","minus":"-1"}',
  '{"dot":"\\\\.","single":"\\\\"}',
  `{"longtext":"${'long, "quoted" text '.replaceAll('"', '\\"').repeat(600)}"}`,
  '{"only":"a document with a key no other has"}',
];

/**
 * The export's rules, written out once more here: the expected bytes of each format. CSV text cells (and column
 * names) starting with = + - @, tab or carriage return get a leading single quote unless `neutralise` is false.
 */
function expectedDownloads(docs: string[], neutralise = true) {
  const items = docs.map((d) => JSON.parse(d) as Record<string, unknown>);
  const columns: string[] = [];
  for (const item of items.slice(0, 100)) for (const k of Object.keys(item)) if (!columns.includes(k)) columns.push(k);
  const text = (s: string) => (neutralise && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
  const cell = (v: unknown) =>
    v === null || v === undefined
      ? ''
      : typeof v === 'object'
        ? JSON.stringify(v)
        : typeof v === 'string'
          ? text(v)
          : String(v as number);
  const rows = items.map((item) => columns.map((c) => cell(item[c])));
  return {
    csv: Buffer.from(stringify([columns.map(text), ...rows])),
    json: Buffer.from(JSON.stringify(items)),
    jsonl: Buffer.from(items.map((i) => JSON.stringify(i) + '\n').join('')),
  };
}

async function seedTask(docs: string[]): Promise<string> {
  const taskId = newId();
  await insertRow(db, 'tasks', {
    id: taskId,
    spider_id: spiderId,
    node_id: '0'.repeat(24),
    status: 'finished',
    run_type: 'random',
    create_ts: T,
  });
  const rows = docs.map((data) => ({
    collection: 'results_export',
    task_id: taskId,
    spider_id: spiderId,
    data,
    create_ts: T,
  }));
  await insertRows(db, 'results', rows);
  return taskId;
}

async function download(taskId: string, format: string, more = ''): Promise<Buffer> {
  const r = await fetch(`${m.url}/api/tasks/${taskId}/results/download?format=${format}${more}`, {
    headers: { authorization: m.adminToken },
  });
  expect(r.status).toBe(200);
  return Buffer.from(await r.arrayBuffer());
}

beforeAll(async () => {
  m = await startTestMaster();
  db = m.master.store.db as Kysely<any>;
  const adminId = (await m.api('GET', '/me')).body.data._id as string;
  spiderId = newId();
  await insertRow(db, 'spiders', { id: spiderId, owner_id: adminId, is_public: 0 });
});

afterAll(async () => {
  await m?.close();
});

describe('an export writes every value as its rules say', () => {
  it('nasty documents among many plain ones, across the blocks of the download, in every text format', async () => {
    // Spread so that they fall inside, at the start and at the end of the blocks the store reads.
    const docs = nastyAmongPlain(25_000);
    await expectSameBytes(await seedTask(docs), docs);
  });

  it('CSV: text a spreadsheet would run as a formula is made plain text, unless turned off', async () => {
    const taskId = await seedTask([
      '{"=cmd":"=HYPERLINK(\\"http://evil.example\\",\\"open\\")","plus":"+1","at":"@SUM(A1)","n":-5,"ok":"a-b"}',
      '{"=cmd":"\\t=1","plus":"-2","at":"\\r@x","n":3,"ok":"=in a sentence? no: starts with it"}',
    ]);
    expect((await download(taskId, 'csv')).toString()).toBe(
      `'=cmd,plus,at,n,ok\n` +
        `"'=HYPERLINK(""http://evil.example"",""open"")",'+1,'@SUM(A1),-5,a-b\n` +
        `'\t=1,'-2,"'\r@x",3,'=in a sentence? no: starts with it\n`,
    );
    expect((await download(taskId, 'csv', '&neutralise=1')).toString()).toMatch(/^'=cmd,/);
    expect((await download(taskId, 'csv', '&neutralise=0')).toString()).toBe(
      `=cmd,plus,at,n,ok\n` +
        `"=HYPERLINK(""http://evil.example"",""open"")",+1,@SUM(A1),-5,a-b\n` +
        `\t=1,-2,"\r@x",3,=in a sentence? no: starts with it\n`,
    );
    const bad = await m.api('GET', `/tasks/${taskId}/results/download`, { query: { neutralise: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/neutralise/);
  });

  it('a task without items: the header alone, an empty array, nothing', async () => {
    const taskId = await seedTask([]);
    expect((await download(taskId, 'csv')).toString()).toBe('');
    expect((await download(taskId, 'json')).toString()).toBe('[]');
    expect((await download(taskId, 'jsonl')).toString()).toBe('');
  });
});

/** Nasty documents first (they make the columns) and again every 997 items among plain ones, `n` in all. */
function nastyAmongPlain(n: number): string[] {
  const docs: string[] = [...NASTY];
  for (let i = 0; docs.length < n; i++)
    docs.push(
      i % 997
        ? JSON.stringify({ n: i, title: `item ${i}`, url: `https://example.com/p/${i}` })
        : NASTY[i % NASTY.length],
    );
  return docs;
}

async function expectSameBytes(taskId: string, docs: string[]) {
  const want = expectedDownloads(docs);
  for (const format of ['csv', 'json', 'jsonl'] as const) {
    const got = await download(taskId, format);
    expect(got.length, format).toBe(want[format].length);
    expect(got.equals(want[format]), format).toBe(true);
  }
  const raw = await download(taskId, 'csv', '&neutralise=0');
  expect(raw.equals(expectedDownloads(docs, false).csv), 'csv with neutralise=0').toBe(true);
}

describe.runIf(ENGINE === 'postgres')('a download on PostgreSQL follows its client', () => {
  const BIG = 300_000;
  let bigTask: string;
  let watcher: pg.Client;

  beforeAll(async () => {
    bigTask = await seedTask([]);
    // 300k items of ≈120 bytes: far more than the sockets between the database and the client can buffer.
    await sql`INSERT INTO results (collection, task_id, spider_id, data, create_ts)
      SELECT 'results_export', ${bigTask}, ${spiderId},
        json_build_object('n', n, 'title', 'item ' || n, 'url', 'https://example.com/p/' || n || repeat('x', 40))::text,
        ${T}::bigint
      FROM generate_series(1, ${BIG}::int) AS n`.execute(db);
    const dbName = m.master.store.location.split('/').pop()!;
    watcher = new pg.Client({ connectionString: PG_ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`) });
    await watcher.connect();
  });

  afterAll(async () => {
    await watcher?.end();
  });

  /** The server's COPYs of items that are running: their state and what they wait for. */
  async function runningCopies(): Promise<Array<{ state: string; wait_event: string | null }>> {
    const r = await watcher.query(
      `SELECT state, wait_event FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'COPY (SELECT data FROM results%'`,
    );
    return r.rows;
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const got = await probe();
      if (got) return got;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** A download of the big task whose client reads its first chunk and then nothing more. */
  async function stalledDownload() {
    const abort = new AbortController();
    const res = await fetch(`${m.url}/api/tasks/${bigTask}/results/download?format=csv`, {
      headers: { authorization: m.adminToken },
      signal: abort.signal,
    });
    const body = res.body!.getReader();
    expect((await body.read()).done).toBe(false);
    return async () => {
      abort.abort();
      await body.cancel().catch(() => undefined);
    };
  }

  it('a client that stops reading holds the COPY back; one that goes away ends it', async () => {
    const leave = await stalledDownload();
    // The client reads no more: the database ends up waiting to write to the master, its COPY unfinished.
    const held = await until('the COPY to wait for its client', async () => {
      const [c] = await runningCopies();
      return c?.wait_event === 'ClientWrite' && c;
    });
    expect(held.state).toBe('active');
    await leave();
    await until('the COPY to end', async () => !(await runningCopies()).length);
    // The master goes on exporting: the connection and the streamed-export slot came back.
    const csv = (await download(bigTask, 'csv')).toString();
    expect(csv.split('\n').length).toBe(BIG + 2);
  });

  it('past three streamed exports the next one reads keyset pages, and writes the same bytes', async () => {
    const docs = nastyAmongPlain(12_000);
    const taskId = await seedTask(docs);
    const leaving = await Promise.all([stalledDownload(), stalledDownload(), stalledDownload()]);
    try {
      await until('three COPYs to run', async () => (await runningCopies()).length === 3);
      await expectSameBytes(taskId, docs);
    } finally {
      for (const leave of leaving) await leave();
    }
    await until('the COPYs to end', async () => !(await runningCopies()).length);
  });
});

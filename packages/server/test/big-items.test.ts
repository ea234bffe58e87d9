import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { addDataSource, openTarget, type TargetDb, type TargetKind } from './datasources.helpers.ts';

/**
 * Items as big as crawlers make them (a page's HTML): each one is stored whole up to the item limit, whatever the
 * log's cut of 64 KiB, and a larger one is refused where the operator sees it: an error line in the task's log
 * naming its size and the limit, and the task's error counting the refused items.
 */
const KIB = 1024;
const MIB = 1024 * KIB;
let m: TestMaster;
const envBefore = process.env.CRAWLDECK_MAX_ITEM_MB;

beforeAll(async () => {
  process.env.CRAWLDECK_MAX_ITEM_MB = '32';
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1, 30_000);
});
afterAll(async () => {
  await m?.close();
  if (envBefore === undefined) delete process.env.CRAWLDECK_MAX_ITEM_MB;
  else process.env.CRAWLDECK_MAX_ITEM_MB = envBefore;
});

/** The spider's item n of exactly `size` bytes, as Python's json.dumps writes it (quotes and backslashes escaped). */
const SPIDER = `
import json, os, sys
Q = 'said "hi" \\\\ <b>'
def item(n, size):
    base = json.dumps({"n": n, "q": Q, "html": ""}, separators=(",", ":"))
    unit = "<td>0123456789</td>"
    pad = size - len(base)
    html = (unit * (pad // len(unit) + 1))[:pad]
    line = json.dumps({"n": n, "q": Q, "html": html}, separators=(",", ":"))
    assert len(line) == size
    return line
sizes = [int(s) for s in sys.argv[1:]]
with open(os.environ["CRAWLDECK_ITEMS"], "a") as f:
    for n, size in enumerate(sizes):
        f.write(item(n, size) + "\\n")
        f.flush()
print("wrote", len(sizes), "items")
`;

/** The same item as the test expects it. */
function expected(n: number, size: number): { n: number; q: string; html: string } {
  const q = 'said "hi" \\ <b>';
  const base = JSON.stringify({ n, q, html: '' });
  const unit = '<td>0123456789</td>';
  const pad = size - base.length;
  const html = unit.repeat(Math.floor(pad / unit.length) + 1).slice(0, pad);
  expect(JSON.stringify({ n, q, html }).length).toBe(size);
  return { n, q, html };
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type Item = { n: number; q: string; html: string };

/** Starts the spider writing items of these sizes (into a data source's table when given); waits for its end. */
async function runTask(name: string, sizes: number[], into?: { dsId: string; table: string }) {
  const spider = await makeSpider(m, name, `python3 items.py ${sizes.join(' ')}`, { 'items.py': SPIDER });
  if (into) {
    const body = { data_source_id: into.dsId, result_table: into.table };
    expect((await m.api('POST', `/spiders/${spider}/data-source`, { body })).status).toBe(200);
  }
  const [taskId] = await runSpider(m, spider);
  const task = await waitTask(m, taskId, ['finished', 'error', 'abnormal', 'cancelled'], 180_000);
  return { taskId, task };
}

/** The items by number; each number once. */
function byNumber(rows: Item[]): Map<number, Item> {
  const items = new Map<number, Item>();
  for (const item of rows) {
    expect(items.has(Number(item.n))).toBe(false);
    items.set(Number(item.n), item);
  }
  return items;
}

/** Runs the spider into the built-in store: the finished task and the items stored, by number. */
async function run(name: string, sizes: number[]) {
  const { taskId, task } = await runTask(name, sizes);
  const rows = await m.master.store.db.selectFrom('results').select(['data']).where('task_id', '=', taskId).execute();
  return { taskId, task, items: byNumber(rows.map((r) => JSON.parse(r.data) as Item)) };
}

/** Every item as the spider wrote it, text whole (length and hash), each once; but the numbers in `refused`. */
function expectWhole(items: Map<number, Item>, sizes: number[], refused: number[] = []): void {
  expect(items.size).toBe(sizes.length - refused.length);
  sizes.forEach((size, n) => {
    const got = items.get(n);
    if (refused.includes(n)) return expect(got).toBeUndefined();
    const want = expected(n, size);
    expect(got?.q).toBe(want.q);
    expect(got?.html.length).toBe(want.html.length);
    expect(sha(got?.html ?? '')).toBe(sha(want.html));
  });
}

/** Small items between the big ones, so a big one lost or merged shows in the numbering. */
const between = (big: number[]) => big.flatMap((size) => [100, size]).concat([100]);

describe('items up to the item limit', () => {
  it('are stored whole around the 64 KiB log cut and at 20 MiB, every one exactly once', async () => {
    const sizes = between([32 * KIB, 60 * KIB, 63 * KIB, 64 * KIB, 64 * KIB + 1, 65 * KIB, 70 * KIB, 20 * MIB]);
    const { task, items } = await run('big-items', sizes);
    expect(task.status).toBe('finished');
    expect(task.error).toBe('');
    expect(task.result_count).toBe(sizes.length);
    expectWhole(items, sizes);
  });
});

describe.each(['postgres', 'mysql'] as TargetKind[])('items into a %s data source', (kind) => {
  let target: TargetDb;
  let dsId: string;
  beforeAll(async () => {
    target = await openTarget(kind);
    dsId = await addDataSource(m, target);
  });
  afterAll(async () => {
    await target?.drop();
  });

  it('are stored whole in the target table up to what its statements hold, a larger one refused in the log', async () => {
    const sizes = between([32 * KIB, 63 * KIB, 64 * KIB, 65 * KIB, 70 * KIB, 4 * MIB, 20 * MIB]);
    // MariaDB takes a statement up to max_allowed_packet, in which an item's text may take twice its size.
    const packet =
      kind === 'mysql'
        ? Number((await target.query<{ p: number }>('SELECT @@max_allowed_packet AS p'))[0].p)
        : Infinity;
    const limit = Math.min(32 * MIB, Math.floor((packet - 64 * KIB) / 2));
    const refused = sizes.flatMap((size, n) => (size > limit ? [n] : []));
    const { taskId, task } = await runTask(`big-items-${kind}`, sizes, { dsId, table: 'big_items' });
    expect(task.status).toBe('finished');
    expect(task.result_count).toBe(sizes.length - refused.length);
    const rows = await target.query<Item>(`SELECT n, q, html FROM big_items WHERE task_id = '${taskId}'`);
    expectWhole(byNumber(rows), sizes, refused);
    const told = (await allLog(m, taskId)).filter((l) => l.msg.includes('refused')).map((l) => l.msg);
    expect(told).toHaveLength(refused.length);
    if (!refused.length) return expect(task.error).toBe('');
    expect(task.error).toMatch(new RegExp(`^${refused.length} items? w(as|ere) refused`));
    expect(told[0]).toContain(
      `max_allowed_packet (${(packet / MIB).toFixed(1)} MiB) of data source "${target.body.name}"`,
    );
  });
});

describe('items over the item limit', () => {
  beforeAll(async () => {
    process.env.CRAWLDECK_MAX_ITEM_MB = '1';
    await m.restart();
    await waitNodes(m, 1, 30_000);
  });

  it('are refused with an error line naming size and limit, counted in the task error; the rest is stored', async () => {
    // Numbered from 0: item 1 of 70 KiB, 3 of exactly the limit, 5 one byte over it, 7 of 20 MiB.
    const sizes = between([70 * KIB, MIB, MIB + 1, 20 * MIB]);
    const { taskId, task, items } = await run('too-big-items', sizes);
    expect(task.status).toBe('finished');
    expect(task.error).toBe('2 items were refused for being over the item limit of 1.0 MiB (largest 20.0 MiB)');
    expect(task.result_count).toBe(sizes.length - 2);
    expect([...items.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 6, 8]);
    expect(sha(items.get(3)?.html ?? '')).toBe(sha(expected(3, MIB).html));
    // The log numbers items from 1.
    const refusals = (await allLog(m, taskId)).filter((l) => l.msg.includes('refused'));
    expect(refusals.map((l) => [l.msg, l.is_error])).toEqual([
      [
        expect.stringMatching(
          /^ERROR: item 6 refused, not stored: its 1\.0 MiB \(1048577 bytes\) are over the item limit of 1\.0 MiB \(1048576 bytes, set by CRAWLDECK_MAX_ITEM_MB on the master\)$/,
        ),
        true,
      ],
      [expect.stringMatching(/^ERROR: item 8 refused, not stored: its 20\.0 MiB \(20971520 bytes\) are over/), true],
    ]);
    expect(task.error_log_count).toBe(2);
    // Finished, with errors: the task is marked for a look for its error lines.
    const marked = await waitFor('the task marked suspicious', async () => {
      const t = (await m.api('GET', `/tasks/${taskId}`)).body.data;
      return t?.suspicious ? t : undefined;
    });
    expect(marked.suspicious.reasons).toContain('error_lines');
  });
});

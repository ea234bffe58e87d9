import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { LIST_COUNT_CAP, newId } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { insertRow, insertRows } from './seed-rows.ts';
import { stringify } from 'csv-stringify/sync';

/**
 * Keyset pages of the task list and of a task's items: cursors walk every row once in a stable order (ties in one
 * millisecond included), while new tasks arrive, within what the caller may read; exports stream every item.
 */
let m: TestMaster;
let db: Kysely<any>;
let alice: string;
let aliceId: string;
const T = 1_700_000_000_000;

type Row = { _id: string; create_ts: string; spider_id: string };
type Page = {
  status: number;
  body: {
    data: any[];
    total?: number;
    total_capped?: boolean;
    next?: string | null;
    prev?: string | null;
    last?: string | null;
    error?: string;
  };
};

/** One GET of a list with the keyset fields typed. */
const list = (route: string, query: Record<string, unknown>, token?: string): Promise<Page> =>
  m.api('GET', route, { token, query }) as Promise<Page>;

async function seedTasks(
  spiderId: string,
  n: number,
  ts: (i: number) => number,
  owner: string | null = null,
  nodeId = '0'.repeat(24),
) {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId(),
    spider_id: spiderId,
    node_id: nodeId,
    status: 'finished',
    run_type: 'random',
    create_ts: ts(i),
    owner_id: owner,
  }));
  await insertRows(db, 'tasks', rows);
  return rows.map((r) => r.id);
}

async function seedSpider(owner: string, isPublic: boolean): Promise<string> {
  const id = newId();
  await insertRow(db, 'spiders', { id, owner_id: owner, is_public: isPublic ? 1 : 0 });
  return id;
}

/** Every row of a list, following `next` from the first page; the pages each answer on the way. */
async function walk(route: string, query: Record<string, unknown>, token?: string, between?: () => Promise<void>) {
  const seen: Row[] = [];
  const pages: Page['body'][] = [];
  let r: Page = await m.api('GET', route, { token, query });
  for (;;) {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    pages.push(r.body);
    seen.push(...r.body.data);
    if (!r.body.next) return { seen, pages };
    await between?.();
    r = await m.api('GET', route, { token, query: { ...query, page_num: undefined, cursor: r.body.next } });
  }
}

const byListOrder = (a: Row, b: Row) =>
  a.create_ts === b.create_ts ? (a._id < b._id ? 1 : -1) : a.create_ts < b.create_ts ? 1 : -1;

let adminId: string;
let publicSpider: string;
let privateSpider: string;
let aliceSpider: string;
const readableByAlice = new Set<string>();

beforeAll(async () => {
  m = await startTestMaster();
  db = m.master.store.db as Kysely<any>;
  alice = await m.createUser('alice-lists');
  aliceId = (await m.api('GET', '/me', { token: alice })).body.data._id;
  adminId = (await m.api('GET', '/me')).body.data._id;
  publicSpider = await seedSpider(adminId, true);
  privateSpider = await seedSpider(adminId, false);
  aliceSpider = await seedSpider(aliceId, false);
  // Ties: every task of the first two groups shares one millisecond.
  await seedTasks(privateSpider, 25, () => T);
  for (const id of await seedTasks(publicSpider, 25, () => T)) readableByAlice.add(id);
  for (const id of await seedTasks(privateSpider, 10, (i) => T - i * 1000, aliceId)) readableByAlice.add(id);
  for (const id of await seedTasks(aliceSpider, 5, (i) => T + i, null)) readableByAlice.add(id);
});
afterAll(async () => {
  await m?.close();
});

describe('the task list by cursor', () => {
  it('walks every task once, in the order of create_ts then id, ties included', async () => {
    const whole = await list('/tasks', { page_size: 100, type: 'spider' });
    expect(whole.body.total).toBe(65);
    const { seen, pages } = await walk('/tasks', { page_size: 7 });
    expect(pages.length).toBe(10);
    expect(seen.map((t) => t._id)).toEqual(whole.body.data.map((t: Row) => t._id));
    expect([...seen].sort(byListOrder)).toEqual(seen);
    expect(new Set(seen.map((t) => t._id)).size).toBe(65);
    expect(pages.every((p) => p.total === 65)).toBe(true);
  });

  it('goes back with prev and reaches the last page with last', async () => {
    const first = await list('/tasks', { page_size: 10 });
    const second = await list('/tasks', { page_size: 10, cursor: first.body.next });
    const back = await list('/tasks', { page_size: 10, cursor: second.body.prev });
    expect(back.body.data.map((t: Row) => t._id)).toEqual(first.body.data.map((t: Row) => t._id));
    expect(back.body.prev).toBeNull();
    const all = (await list('/tasks', { page_size: 100 })).body.data.map((t: Row) => t._id);
    const last = await list('/tasks', { page_size: 10, cursor: first.body.last });
    expect(last.body.data.map((t: Row) => t._id)).toEqual(all.slice(-10));
    expect(last.body.next).toBeNull();
    const beforeLast = await list('/tasks', { page_size: 10, cursor: last.body.prev });
    expect(beforeLast.body.data.map((t: Row) => t._id)).toEqual(all.slice(-20, -10));
  });

  it('neither repeats nor skips a task while new tasks arrive between pages', async () => {
    const before = (await list('/tasks', { page_size: 100 })).body.data.map((t: Row) => t._id);
    let added = 0;
    const { seen } = await walk('/tasks', { page_size: 6 }, undefined, async () => {
      await seedTasks(publicSpider, 2, () => Date.now() + added++);
    });
    expect(seen.map((t) => t._id)).toEqual(before);
    await db
      .deleteFrom('tasks')
      .where('create_ts', '>', T + 1000)
      .execute();
  });

  it('shows a normal user only what the task policy lets them read, on every page', async () => {
    const { seen, pages } = await walk('/tasks', { page_size: 4 }, alice);
    expect(pages.length).toBe(10);
    expect(new Set(seen.map((t) => t._id))).toEqual(readableByAlice);
    expect(seen.length).toBe(readableByAlice.size);
    expect(pages.every((p) => p.total === readableByAlice.size)).toBe(true);
    expect(seen.some((t) => t.spider_id === privateSpider)).toBe(true);
    const all = seen.map((t) => t._id);
    const ids = (p: Page) => p.body.data.map((t: Row) => t._id);
    const last = await list('/tasks', { page_size: 4, cursor: pages[0].last }, alice);
    expect(ids(last)).toEqual(all.slice(-4));
    expect(ids(await list('/tasks', { page_size: 4, cursor: last.body.prev }, alice))).toEqual(all.slice(-8, -4));
    expect(ids(await list('/tasks', { page_size: 4, page_num: 3 }, alice))).toEqual(all.slice(8, 12));
    const own = await list('/tasks', { spider_id: privateSpider, page_size: 100 }, alice);
    expect(own.body.total).toBe(10);
    expect(ids(own).every((id) => readableByAlice.has(id))).toBe(true);
  });

  it('refuses a cursor it did not give and page numbers past the counted rows, with a message', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const cursor of ['not a cursor', b64(['a', 'x', 'y']), b64(['z']), b64(['a', 1]), b64({ a: 1 })]) {
      const r = await list('/tasks', { cursor });
      expect(r.status, cursor).toBe(400);
      expect(r.body.error).toMatch(/cursor is not valid/);
    }
    const deep = await list('/tasks', { page_num: LIST_COUNT_CAP / 10 + 1, page_size: 10 });
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatch(/page_num reaches past/);
  });

  it('counts up to the cap and says so beyond it', async () => {
    const big = await seedSpider(adminId, false);
    await seedTasks(big, LIST_COUNT_CAP + 5, (i) => T - 10_000_000 - i, null);
    const r = await list('/tasks', { spider_id: big, page_size: 10 });
    expect(r.body).toMatchObject({ total: LIST_COUNT_CAP, total_capped: true });
    const last = await list('/tasks', { spider_id: big, page_size: 10, cursor: r.body.last });
    expect(last.body.data.at(-1).create_ts).toBe(new Date(T - 10_000_000 - LIST_COUNT_CAP - 4).toISOString());
    const small = await list('/tasks', { spider_id: aliceSpider });
    expect(small.body).toMatchObject({ total: 5, total_capped: false });
    expect((await m.api('GET', '/tasks', { token: alice })).body.total).toBe(readableByAlice.size);
  });
});

describe("a node's tasks by cursor", () => {
  let nodeId: string;
  const mine = new Set<string>();
  const alicesOnNode = new Set<string>();
  const route = () => `/nodes/${nodeId}/tasks`;
  const ids = (p: Page) => p.body.data.map((t: Row) => t._id);
  beforeAll(async () => {
    nodeId = newId();
    await insertRow(db, 'nodes', { id: nodeId, name: 'lists-node', type: 'worker', status: 'offline' });
    // Twelve tasks in one millisecond (a tie only the id orders), spread over spiders alice may and may not read.
    for (const id of await seedTasks(privateSpider, 12, () => T + 500, null, nodeId)) mine.add(id);
    for (const id of await seedTasks(publicSpider, 9, (i) => T + 400 - i, null, nodeId)) {
      mine.add(id);
      alicesOnNode.add(id);
    }
    for (const id of await seedTasks(aliceSpider, 6, () => T + 300, null, nodeId)) {
      mine.add(id);
      alicesOnNode.add(id);
    }
  });

  it('walks every task of the node once forward, ties included, and back from the last page', async () => {
    const { seen, pages } = await walk(route(), { page_size: 5 });
    expect(pages.length).toBe(6);
    expect(seen.length).toBe(mine.size);
    expect(new Set(seen.map((t) => t._id))).toEqual(mine);
    expect([...seen].sort(byListOrder)).toEqual(seen);
    expect(pages.every((p) => p.total === mine.size && p.total_capped === false)).toBe(true);
    // From the last page back to the first by `prev`: pages counted from the end, the same tasks in the same order.
    let r = await list(route(), { page_size: 5, cursor: pages[0].last });
    const back: string[][] = [];
    for (;;) {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      back.unshift(ids(r));
      if (!r.body.prev) break;
      r = await list(route(), { page_size: 5, cursor: r.body.prev });
    }
    expect(back.length).toBe(6);
    expect(back.flat()).toEqual(seen.map((t) => t._id));
  });

  it('keeps to the node and to what a normal user may read, and pages by number within the counted rows', async () => {
    const { seen, pages } = await walk(route(), { page_size: 4 }, alice);
    expect(new Set(seen.map((t) => t._id))).toEqual(alicesOnNode);
    expect(seen.length).toBe(alicesOnNode.size);
    expect(pages.every((p) => p.total === alicesOnNode.size)).toBe(true);
    const all = seen.map((t) => t._id);
    expect(ids(await list(route(), { page_size: 4, page_num: 2 }, alice))).toEqual(all.slice(4, 8));
  });

  it('answers 400 for a cursor it did not give and 404 for an unknown node', async () => {
    const bad = await list(route(), { cursor: 'not a cursor' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/cursor is not valid/);
    expect((await list(`/nodes/${newId()}/tasks`, {})).status).toBe(404);
  });
});

/** Item i: plain, or with the characters CSV quotes and COPY escapes (quote, comma, backslash, tab, line break). */
const itemOf = (i: number) => ({
  n: i,
  title: i % 7 ? `item ${i}` : i % 2 ? `quote "${i}", comma` : `back\\slash\ttab\nline ${i} 标题`,
});

describe("a task's items by cursor and as exports", () => {
  const ITEMS = 12_345;
  const expected = Array.from({ length: ITEMS }, (_, i) => itemOf(i));
  let taskId: string;
  beforeAll(async () => {
    [taskId] = await seedTasks(publicSpider, 1, () => T - 1);
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      collection: 'results_lists',
      task_id: taskId,
      spider_id: publicSpider,
      data: JSON.stringify(itemOf(i)),
      create_ts: T,
    }));
    await insertRows(db, 'results', items);
  });

  it('pages the items forward and back by cursor', async () => {
    const first = await list(`/tasks/${taskId}/results`, { page_size: 1000 });
    expect(first.body.total).toBe(LIST_COUNT_CAP);
    expect(first.body.total_capped).toBe(true);
    const { seen } = await walk(`/tasks/${taskId}/results`, { page_size: 1000 });
    expect(seen.map((r) => (r as unknown as { n: number }).n)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
    const last = await m.api('GET', `/tasks/${taskId}/results`, {
      query: { page_size: 1000, cursor: first.body.last },
    });
    expect(last.body.data.map((r: { n: number }) => r.n)).toEqual(
      Array.from({ length: 1000 }, (_, i) => ITEMS - 1000 + i),
    );
  });

  async function download(format: string): Promise<string> {
    const r = await fetch(`${m.url}/api/tasks/${taskId}/results/download?format=${format}`, {
      headers: { authorization: `Bearer ${m.adminToken}` },
    });
    expect(r.status).toBe(200);
    return r.text();
  }

  it('exports every item once, in order, as CSV and JSON', async () => {
    const csv = await download('csv');
    expect(csv).toBe(stringify([['n', 'title'], ...expected.map((x) => [x.n, x.title])]));
    expect(JSON.parse(await download('json'))).toEqual(expected);
    const several = await Promise.all([download('jsonl'), download('jsonl'), download('jsonl'), download('jsonl')]);
    for (const text of several) expect(text.trimEnd().split('\n').length).toBe(ITEMS);
  });
});

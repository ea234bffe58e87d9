import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../store/db.ts';
import { migrateToLatest } from '../../store/migrate.ts';
import type { DB } from '../../store/schema.ts';
import { insertItemsSqlite, type ItemColumns, type ItemConflict } from './results-insert.store.ts';

let dir: string;
let store: Store;
let db: Kysely<DB>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'results-insert-'));
  store = openStore({ dataDir: dir, checkpoints: 'sqlite' });
  db = store.db;
  await migrateToLatest(db, 'sqlite');
  // A task row for the items to belong to; its spider is not needed here.
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  await sql`INSERT INTO tasks (id, spider_id, node_id, status, run_type, create_ts)
    VALUES ('t1', 's1', 'n1', 'running', 'random', 0)`.execute(db);
  await sql`PRAGMA foreign_keys = ON`.execute(db);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const target = (collection: string) => ({ collection, taskId: 't1', spiderId: 's1', createTs: 1 });

const insert = (collection: string, rows: ItemColumns, conflict: ItemConflict) =>
  db.transaction().execute((trx) => insertItemsSqlite(trx, target(collection), rows, conflict));

const stored = (collection: string) =>
  db
    .selectFrom('results')
    .select(['id', 'dedup_key', 'data'])
    .where('collection', '=', collection)
    .orderBy('id')
    .execute();

describe('items written into the built-in store on SQLite', () => {
  it('stores every row of a batch larger than one statement takes, in the order given', async () => {
    const docs = Array.from({ length: 1300 }, (_, n) => JSON.stringify({ n }));
    expect(await insert('plain', { docs }, 'none')).toBe(1300);
    const rows = await stored('plain');
    expect(rows.map((r) => r.data)).toEqual(docs);
    expect(rows.every((r) => r.dedup_key === null)).toBe(true);
  });

  it('ignore: a key stored before keeps its item and is not counted; rows without a key are always stored', async () => {
    expect(await insert('ign', { docs: ['{"u":"a"}', '{"u":"b"}'], keys: ['"a"', '"b"'] }, 'ignore')).toBe(2);
    const again = { docs: ['{"u":"b","n":2}', '{"n":3}', '{"u":"c"}'], keys: ['"b"', null, '"c"'] };
    expect(await insert('ign', again, 'ignore')).toBe(2);
    expect((await stored('ign')).map((r) => r.data)).toEqual(['{"u":"a"}', '{"u":"b"}', '{"n":3}', '{"u":"c"}']);
  });

  it('overwrite: a key stored before takes the new item and counts as stored', async () => {
    expect(await insert('ow', { docs: ['{"u":"a"}', '{"u":"b"}'], keys: ['"a"', '"b"'] }, 'overwrite')).toBe(2);
    expect(await insert('ow', { docs: ['{"u":"b","n":2}', '{"u":"c"}'], keys: ['"b"', '"c"'] }, 'overwrite')).toBe(2);
    const rows = await stored('ow');
    expect(rows.map((r) => [r.dedup_key, r.data])).toEqual([
      ['"a"', '{"u":"a"}'],
      ['"b"', '{"u":"b","n":2}'],
      ['"c"', '{"u":"c"}'],
    ]);
  });

  it('uses a few statement texts, each short enough for the connection to keep prepared', async () => {
    const texts = new Set<string>();
    for (const keyed of [false, true])
      for (let size = 1; size <= 1100; size += 37) {
        const docs = Array.from({ length: size }, (_, n) => `{"n":${n}}`);
        const rows: ItemColumns = keyed ? { docs, keys: docs.map((_, n) => `"${n}"`) } : { docs };
        const sent: unknown[] = [];
        // Records the statements instead of running them: each takes its rows' values after four of the target.
        const trx = {
          executeQuery: async (q: CompiledQuery) => {
            texts.add(q.sql);
            expect(q.sql.split('?').length - 1).toBe(q.parameters.length);
            sent.push(...q.parameters.slice(4));
            return { rows: [], numAffectedRows: BigInt((q.parameters.length - 4) / (keyed ? 2 : 1)) };
          },
        } as unknown as Transaction<DB>;
        expect(await insertItemsSqlite(trx, target('x'), rows, keyed ? 'ignore' : 'none')).toBe(size);
        expect(sent).toEqual(keyed ? docs.flatMap((d, n) => [`"${n}"`, d]) : docs);
      }
    // 512 rows at most a statement, then powers of two: ten texts a kind of statement.
    expect(texts.size).toBeLessThanOrEqual(20);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(4096);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import type { DB } from '../store/schema.ts';
import {
  deployReadFilter,
  scheduleReadFilter,
  spiderReadFilter,
  taskReadFilter,
  tokenFilter,
  type Actor,
} from './index.ts';

/**
 * The list filters of the owned resources, run by a real store: each one hands a user their own objects and never
 * another user's private ones, and an administrator everything. The row predicates are checked in policies.test.ts.
 */
const admin: Actor = { id: 'root', role: 'admin' };
const alice: Actor = { id: 'alice', role: 'normal' };
const bob: Actor = { id: 'bob', role: 'normal' };

let dir: string;
let store: Store;
let db: Kysely<DB>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'owner-filters-'));
  store = openStore({ dataDir: dir, checkpoints: 'sqlite' });
  db = store.db;
  await migrateToLatest(db, 'sqlite');
  // Rows of alice and bob only; the users, nodes and spiders they point at are not needed by the filters.
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  for (const owner of ['alice', 'bob']) {
    await sql`INSERT INTO spiders (id, name, owner_id, is_public, create_ts, update_ts)
      VALUES (${`s-${owner}`}, ${owner}, ${owner}, 0, 0, 0)`.execute(db);
    await sql`INSERT INTO tasks (id, spider_id, node_id, owner_id, status, run_type, create_ts)
      VALUES (${`t-${owner}`}, ${`s-${owner}`}, 'n', ${owner}, 'finished', 'random', 0)`.execute(db);
    await sql`INSERT INTO schedules (id, name, cron, spider_id, owner_id, timezone, active_since_ts, create_ts, update_ts)
      VALUES (${`c-${owner}`}, ${owner}, '* * * * *', ${`s-${owner}`}, ${owner}, 'UTC', 0, 0, 0)`.execute(db);
    await sql`INSERT INTO deploys (id, spider_id, node_id, create_ts, finish_ts)
      VALUES (${`d-${owner}`}, ${`s-${owner}`}, 'n', 0, 0)`.execute(db);
    await sql`INSERT INTO tokens (id, user_id, token_hash, kind, name, create_ts)
      VALUES (${`k-${owner}`}, ${owner}, ${`hash-${owner}`}, 'api', 'cli', 0)`.execute(db);
    await sql`INSERT INTO tokens (id, user_id, token_hash, kind, name, create_ts)
      VALUES (${`session-${owner}`}, ${owner}, ${`session-hash-${owner}`}, 'session', '', 0)`.execute(db);
  }
  await sql`PRAGMA foreign_keys = ON`.execute(db);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ids = async (rows: Promise<{ id: string }[]>) => (await rows).map((r) => r.id).sort();

const lists = {
  spiders: (a: Actor) => ids(db.selectFrom('spiders').select('id').where(spiderReadFilter(a)).execute()),
  tasks: (a: Actor) => ids(db.selectFrom('tasks').select('id').where(taskReadFilter(a)).execute()),
  schedules: (a: Actor) => ids(db.selectFrom('schedules').select('id').where(scheduleReadFilter(a)).execute()),
  deploys: (a: Actor) => ids(db.selectFrom('deploys').select('id').where(deployReadFilter(a)).execute()),
  tokens: (a: Actor) => ids(db.selectFrom('tokens').select('id').where(tokenFilter(a)).execute()),
};

describe('owner filters deny another user’s objects', () => {
  it('private spiders and what hangs off them: each user gets their own only, an administrator both', async () => {
    for (const [name, prefix] of [
      ['spiders', 's'],
      ['tasks', 't'],
      ['schedules', 'c'],
      ['deploys', 'd'],
    ] as const) {
      expect(await lists[name](alice), name).toEqual([`${prefix}-alice`]);
      expect(await lists[name](bob), name).toEqual([`${prefix}-bob`]);
      expect(await lists[name](admin), name).toEqual([`${prefix}-alice`, `${prefix}-bob`]);
    }
  });

  it('API tokens: each user gets their own API token only, administrators too, and never a session', async () => {
    expect(await lists.tokens(alice)).toEqual(['k-alice']);
    expect(await lists.tokens(bob)).toEqual(['k-bob']);
    expect(await lists.tokens(admin)).toEqual([]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableIdentity } from '@crawldeck/shared';
import { openStore, type Store } from '../db.ts';
import { columnTypes, migrateToLatest } from '../migrate.ts';
import { m2026120730_datasource_identity } from './2026120730_datasource_identity.ts';

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ds-identity-'));
  store = openStore({ dataDir: dir, checkpoints: 'sqlite' });
  await migrateToLatest(store.db, 'sqlite');
  // The store as it was before this migration: no refusal count yet.
  await store.db.schema.alterTable('task_targets').dropColumn('refusals').execute();
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('claims of data-source tables moved to the real table', () => {
  it('keys each claim by its table, the older of two claims on one table keeping it', async () => {
    const db = store.db;
    const source = (id: string, host: string) => ({
      id,
      name: id,
      type: 'postgres' as const,
      host,
      port: 5432,
      database: 'crawl',
      username: 'u',
      password_enc: '',
      schema: '',
      tls: '{}',
      create_ts: 1,
      update_ts: 1,
    });
    await db
      .withTables<{ data_sources: ReturnType<typeof source> }>()
      .insertInto('data_sources')
      .values([source('aaaaaaaaaaaaaaaaaaaaaaaa', '127.0.0.1'), source('bbbbbbbbbbbbbbbbbbbbbbbb', 'LOCALHOST')])
      .execute();
    await db
      .insertInto('result_collections')
      .values([
        { name: 'datasource:bbbbbbbbbbbbbbbbbbbbbbbb/items', owner_id: 'bob', create_ts: 20 },
        { name: 'datasource:aaaaaaaaaaaaaaaaaaaaaaaa/items', owner_id: 'alice', create_ts: 10 },
        { name: 'datasource:bbbbbbbbbbbbbbbbbbbbbbbb/other', owner_id: 'bob', create_ts: 30 },
        { name: 'results_spider', owner_id: 'carol', create_ts: 5 },
      ])
      .execute();

    await m2026120730_datasource_identity.up(db, columnTypes('sqlite'));

    const claims = await db.selectFrom('result_collections').select(['name', 'owner_id']).orderBy('name').execute();
    const address = { type: 'postgres' as const, host: 'localhost', port: 5432, database: 'crawl', schema: '' };
    expect(claims).toEqual(
      [
        { name: tableIdentity(address, 'items'), owner_id: 'alice' },
        { name: tableIdentity(address, 'other'), owner_id: 'bob' },
        { name: 'results_spider', owner_id: 'carol' },
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
    const target = await db
      .withTables<{ task_targets: { refusals: number; task_id: string } }>()
      .selectFrom('task_targets')
      .select('refusals')
      .execute();
    expect(target).toEqual([]);
  });
});

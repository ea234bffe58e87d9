import mysql from 'mysql2/promise';
import pg from 'pg';
import { PG_ADMIN_URL, type TestMaster } from './harness.ts';
import { makeSpider } from './tasks.helpers.ts';

export type TargetKind = 'postgres' | 'mysql';

/** A database of a test's own in a target server, with a client to look at what the master wrote there. */
export interface TargetDb {
  kind: TargetKind;
  /** The body that adds it as a data source. */
  body: Record<string, unknown>;
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

const unique = () => `ds_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;

export async function pgTarget(port = 5432, adminUrl = PG_ADMIN_URL): Promise<TargetDb> {
  const name = unique();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const client = new pg.Client({ connectionString: adminUrl.replace(/\/[^/]*$/, `/${name}`) });
  await client.connect();
  client.on('error', () => undefined);
  return {
    kind: 'postgres',
    body: {
      name: `pg-${name}`,
      type: 'postgres',
      host: '127.0.0.1',
      port,
      database: name,
      username: 'postgres',
      password: 'unused-with-trust',
    },
    async query(text, params) {
      return (await client.query(text, params as unknown[])).rows;
    },
    async drop() {
      await client.end().catch(() => undefined);
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function mysqlTarget(port = 3306): Promise<TargetDb> {
  const name = unique();
  const conn = await mysql.createConnection({
    host: '127.0.0.1',
    port,
    user: 'root',
    password: '',
    multipleStatements: false,
  });
  conn.on('error', () => undefined);
  await conn.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  await conn.query(`USE ${name}`);
  return {
    kind: 'mysql',
    body: {
      name: `my-${name}`,
      type: 'mysql',
      host: '127.0.0.1',
      port,
      database: name,
      username: 'root',
      password: '',
    },
    async query(text, params) {
      const [rows] = await conn.query(text, params);
      return rows as never[];
    },
    async drop() {
      await conn.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
      await conn.end().catch(() => undefined);
    },
  };
}

export const openTarget = (kind: TargetKind) => (kind === 'postgres' ? pgTarget() : mysqlTarget());

export async function addDataSource(m: TestMaster, target: TargetDb): Promise<string> {
  const r = await m.api('PUT', '/data-sources', { body: target.body });
  if (r.status !== 200) throw new Error(`add data source: ${r.status} ${r.body.error}`);
  return r.body.data._id as string;
}

/**
 * Items generator of the test spiders: `gen.py <count> <shape> [gate-file gate-at]`. Shapes: `mixed` (fields that
 * come and go and change type), `dup` (a `url` field repeating every 100 items). With a gate, the spider stops
 * after `gate-at` items until the gate file exists.
 */
export const GEN_PY = String.raw`
import json, os, sys, time
n, shape = int(sys.argv[1]), sys.argv[2]
gate, gate_at = (sys.argv[3], int(sys.argv[4])) if len(sys.argv) > 4 else (None, -1)
with open(os.environ['CRAWLDECK_ITEMS'], 'a') as f:
    for i in range(n):
        if i == gate_at:
            f.flush()
            while not os.path.exists(gate):
                time.sleep(0.05)
        if shape == 'dup':
            item = {'url': 'u%d' % (i % 100), 'n': i}
        else:
            item = {'n': i, 'title': 't%d' % i}
            if i % 2: item['price'] = i + 0.5
            if i % 3 == 0: item['tags'] = ['a', i, {'deep': i}]
            if i >= n // 2: item['late'] = i % 4 == 0
            if i % 7 == 0: item['mixed'] = i
            if i % 7 == 1 and i > n // 3: item['mixed'] = 'm%d' % i
            if i % 11 == 0: item['nothing'] = None
            if i == 5: item['emoji'] = '爬虫 🕷'
        f.write(json.dumps(item, ensure_ascii=False) + '\n')
`;

/** A spider whose items go to the data source, with the generator above. */
export async function generatorSpider(
  m: TestMaster,
  name: string,
  dataSourceId: string,
  extra: Record<string, unknown> = {},
  table = '',
): Promise<string> {
  const id = await makeSpider(m, name, '/usr/bin/python3 gen.py', { 'gen.py': GEN_PY }, extra);
  const r = await m.api('POST', `/spiders/${id}/data-source`, {
    body: { data_source_id: dataSourceId, result_table: table },
  });
  if (r.status !== 200) throw new Error(`set data source: ${r.status} ${r.body.error}`);
  return id;
}

/** Items of the mixed shape exactly as the generator makes them (null fields are not stored). */
export function mixedItem(i: number, n: number): Record<string, unknown> {
  const item: Record<string, unknown> = { n: i, title: `t${i}` };
  if (i % 2) item.price = i + 0.5;
  if (i % 3 === 0) item.tags = ['a', i, { deep: i }];
  if (i >= Math.floor(n / 2)) item.late = i % 4 === 0;
  if (i % 7 === 0) item.mixed = i;
  if (i % 7 === 1 && i > Math.floor(n / 3)) item.mixed = `m${i}`;
  if (i === 5) item.emoji = '爬虫 🕷';
  return item;
}

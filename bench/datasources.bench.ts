/**
 * Results data source benchmarks. Run: `node --expose-gc --import tsx bench/datasources.bench.ts` (PostgreSQL at
 * CRAWLDECK_TEST_PG_URL, MariaDB at 127.0.0.1:3306 root). A master on SQLite with its embedded node, in this process:
 *  1. Item ingest: a spider appending ITEMS JSON lines (six fields, one nested) into the built-in store, a PostgreSQL
 *     and a MariaDB data source; items/s from PUT /tasks to all items stored, and the ratio to the built-in store.
 *  2. xlsx export of XLSX_ROWS rows of a PostgreSQL data source table: time, bytes, and peak RSS of the process
 *     during the download against the RSS before it.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { RunningMaster } from '../packages/server/src/master.ts';
import { PG_ADMIN_URL } from '../packages/server/test/harness.ts';
import { api, waitDone, waitNodeOnline, withMaster } from './support.ts';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 200_000);
const XLSX_ROWS = Number(process.env.BENCH_XLSX_ROWS ?? 1_000_000);
const GEN = `/usr/bin/python3 -c "import os,json;f=open(os.environ['CRAWLDECK_ITEMS'],'a');[f.write(json.dumps({'n':i,'title':'title %d'%i,'url':'https://example.com/%d'%i,'price':i*0.5,'ok':i%2==0,'tags':['a',i]})+'\\n') for i in range(${ITEMS})]"`;

/** Runs the generator spider into the given data source ('' = built-in); items/s. */
async function ingest(m: RunningMaster, token: string, label: string, dataSourceId: string): Promise<number> {
  const sid = (await api(m, token, 'PUT', '/spiders', { name: `ingest-${label}`, cmd: GEN, type: 'customized' })).data
    ._id;
  if (dataSourceId)
    await api(m, token, 'POST', `/spiders/${sid}/data-source`, {
      data_source_id: dataSourceId,
      result_table: `bench_${label}`,
    });
  const t0 = performance.now();
  const [id] = (await api(m, token, 'PUT', '/tasks', { spider_id: sid, run_type: 'random' })).data;
  const t = await waitDone(m, token, id);
  const s = (performance.now() - t0) / 1000;
  if (t.status !== 'finished' || t.result_count !== ITEMS)
    throw new Error(`${label}: ${t.status} ${t.result_count} items ${t.error}`);
  const rate = ITEMS / s;
  console.log(`${label.padEnd(10)} ${ITEMS} items in ${s.toFixed(1)} s = ${Math.round(rate)} items/s`);
  return rate;
}

/** Peak RSS while downloading a task's xlsx, sampled every 20 ms. */
async function xlsxExport(m: RunningMaster, token: string, taskId: string): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const res = await fetch(`${m.url}/api/tasks/${taskId}/results/download?format=xlsx`, {
    headers: { authorization: token },
  });
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  clearInterval(timer);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
  console.log(
    `xlsx ${XLSX_ROWS} rows: ${((performance.now() - t0) / 1000).toFixed(1)} s, ${mb(bytes)} MiB; RSS ${mb(before)} MiB before, peak ${mb(peak)} MiB (+${mb(peak - before)} MiB)`,
  );
}

async function main(): Promise<void> {
  const dbName = `bench_ds_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const my = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' });
  await my.query(`CREATE DATABASE ${dbName} CHARACTER SET utf8mb4`);
  try {
    await withMaster({ scratch: 'crawldeck-bench-ds', embeddedNode: true }, (m, token) => benchmark(m, token, dbName));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    await my.query(`DROP DATABASE IF EXISTS ${dbName}`);
    await my.end();
  }
}

/** Ingest into the built-in store and both data sources, then the xlsx export, on a started master. */
async function benchmark(m: RunningMaster, token: string, dbName: string): Promise<void> {
  await waitNodeOnline(m, token);
  const base = { host: '127.0.0.1', database: dbName };
  const pgId = (
    await api(m, token, 'PUT', '/data-sources', {
      ...base,
      name: 'bench-pg',
      type: 'postgres',
      port: 5432,
      username: 'postgres',
    })
  ).data._id;
  const myId = (
    await api(m, token, 'PUT', '/data-sources', {
      ...base,
      name: 'bench-my',
      type: 'mysql',
      port: 3306,
      username: 'root',
    })
  ).data._id;

  console.log('## item ingest');
  const builtin = await ingest(m, token, 'builtin', '');
  const intoPg = await ingest(m, token, 'postgres', pgId);
  const intoMy = await ingest(m, token, 'mariadb', myId);
  console.log(
    `ratio to the built-in store: PostgreSQL ${(intoPg / builtin).toFixed(2)}, MariaDB ${(intoMy / builtin).toFixed(2)}`,
  );

  console.log('## xlsx export');
  // One real item makes the table and the task's target; the rest is filled in by the database itself.
  const sid = (
    await api(m, token, 'PUT', '/spiders', {
      name: 'xlsx',
      cmd: GEN.replace(`range(${ITEMS})`, 'range(1)'),
      type: 'customized',
    })
  ).data._id;
  await api(m, token, 'POST', `/spiders/${sid}/data-source`, { data_source_id: pgId, result_table: 'bench_xlsx' });
  const [taskId] = (await api(m, token, 'PUT', '/tasks', { spider_id: sid, run_type: 'random' })).data;
  await waitDone(m, token, taskId);
  const target = new pg.Client({ connectionString: PG_ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`) });
  await target.connect();
  await target.query(
    `INSERT INTO bench_xlsx (task_id, _seq, n, title, url, price, ok, tags)
     SELECT $1, g, g, 'title ' || g, 'https://example.com/' || g, g * 0.5, g % 2 = 0, jsonb_build_array('a', g)
     FROM generate_series(1, $2::int - 1) g`,
    [taskId, XLSX_ROWS],
  );
  await target.end();
  await xlsxExport(m, token, taskId);
}

await main();

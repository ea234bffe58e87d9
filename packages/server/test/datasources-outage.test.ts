import { rmSync, writeFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { generatorSpider, type TargetDb } from './datasources.helpers.ts';
import { gatePath, runSpider, waitFor, waitTask } from './tasks.helpers.ts';
import { startPgServer, type PgServer } from './support/pg-server.ts';
import { startMariaDbServer, type MariaDbServer } from './support/mariadb-server.ts';

// A data source that goes down in the middle of a task and comes back: the task shows the driver's error while the
// node keeps the items spooled, and afterwards the target holds every item exactly once. Each engine runs a server
// of the test's own (ports below) so the test can stop it.
const PG_PORTS: [number, number] = [44000, 44049];
const MARIADB_PORTS: [number, number] = [44050, 44099];
const N = 3000;
const GATE_AT = 1000;

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
}, 60_000);
afterAll(async () => {
  await m?.close();
});

interface Outage {
  stop(): Promise<void>;
  start(): Promise<void>;
  target: TargetDb;
}

async function mariaDbOutage(server: MariaDbServer): Promise<Outage> {
  const conn = await mysql.createConnection({ host: '127.0.0.1', port: server.port, user: 'root', password: '' });
  await conn.query('CREATE DATABASE outage CHARACTER SET utf8mb4');
  await conn.end();
  const query = async <T>(text: string) => {
    const c = await mysql.createConnection({
      host: '127.0.0.1',
      port: server.port,
      user: 'root',
      password: '',
      database: 'outage',
    });
    try {
      return (await c.query(text))[0] as T[];
    } finally {
      await c.end();
    }
  };
  return {
    stop: () => server.stop(),
    start: () => server.start(),
    target: {
      kind: 'mysql',
      body: {
        name: 'own-mariadb',
        type: 'mysql',
        host: '127.0.0.1',
        port: server.port,
        database: 'outage',
        username: 'root',
        password: '',
      },
      query,
      drop: async () => undefined,
    },
  };
}

async function pgOutage(server: PgServer): Promise<Outage> {
  // Each look opens its own connection: the server restarts in between.
  const query = async <T>(text: string) => {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      return (await c.query(text)).rows as T[];
    } finally {
      await c.end();
    }
  };
  return {
    stop: () => server.stop(),
    start: () => server.start(),
    target: {
      kind: 'postgres',
      body: {
        name: 'own-pg',
        type: 'postgres',
        host: '127.0.0.1',
        port: server.port,
        database: 'crawldeck',
        username: 'postgres',
        password: '',
      },
      query,
      drop: async () => undefined,
    },
  };
}

async function throughOutage(kind: string, outage: Outage) {
  const ds = await m.api('PUT', '/data-sources', { body: { ...outage.target.body, name: `outage-${kind}` } });
  expect(ds.status).toBe(200);
  const gate = gatePath(`ds-${kind}`);
  const spider = await generatorSpider(m, `outage-${kind}`, ds.body.data._id, {}, 'outage_items');
  const [task] = await runSpider(m, spider, { param: `${N} mixed ${gate} ${GATE_AT}` });
  try {
    await waitFor(
      'the items before the gate',
      async () => (await m.api('GET', `/tasks/${task}`)).body.data.result_count === GATE_AT,
      60_000,
    );
    await outage.stop();
    writeFileSync(gate, '', { mode: 0o644 });
    const failing = await waitFor(
      'the write error on the task',
      async () => {
        const t = (await m.api('GET', `/tasks/${task}`)).body.data;
        return t.error ? t : undefined;
      },
      60_000,
    );
    expect(failing.status).toBe('running');
    expect(failing.error).toContain(`data source "outage-${kind}"`);
    expect((await m.api('GET', `/tasks/${task}/data-source`)).body.data.error).toBe(failing.error);
    expect(failing.result_count).toBe(GATE_AT);
    await outage.start();
    const done = await waitTask(m, task, ['finished', 'error'], 120_000);
    expect(done).toMatchObject({ status: 'finished', result_count: N, error: '' });
    const [{ n, seqs }] = await outage.target.query<{ n: number; seqs: number }>(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT _seq) AS seqs FROM outage_items`,
    );
    expect([Number(n), Number(seqs)]).toEqual([N, N]);
    expect((await m.api('GET', `/tasks/${task}/data-source`)).body.data.error).toBe('');
  } finally {
    rmSync(gate, { force: true });
  }
}

describe('a data source that goes down mid-task and comes back', () => {
  it('PostgreSQL: the task shows the error, keeps its items and ends with exact counts', async () => {
    const server = await startPgServer(...PG_PORTS);
    try {
      await throughOutage('postgres', await pgOutage(server));
    } finally {
      await server.destroy();
    }
  }, 240_000);

  it('MariaDB: the task shows the error, keeps its items and ends with exact counts', async () => {
    const server = await startMariaDbServer(...MARIADB_PORTS);
    try {
      await throughOutage('mysql', await mariaDbOutage(server));
    } finally {
      await server.destroy();
    }
  }, 240_000);
});

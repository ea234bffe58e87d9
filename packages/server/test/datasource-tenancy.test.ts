import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { addDataSource, GEN_PY, openTarget, type TargetDb, type TargetKind } from './datasources.helpers.ts';
import { allLog, makeSpider, runSpider, waitTask } from './tasks.helpers.ts';

// Results databases shared by many users: Crawldeck writes only into tables it created, a table is owned as the
// real table it is (whichever data-source entry names it), and testing a stored entry never hands its password to
// a server the request names.
let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
}, 60_000);
afterAll(async () => {
  await m?.close();
});

/** A normal user's spider writing `count` generated items into `table` of the data source, as that user sets it. */
async function userSpider(token: string, name: string, dataSourceId: string, table: string, count = 20) {
  const id = await makeSpider(m, name, `/usr/bin/python3 gen.py ${count} mixed`, { 'gen.py': GEN_PY }, {}, token);
  const r = await m.api('POST', `/spiders/${id}/data-source`, {
    token,
    body: { data_source_id: dataSourceId, result_table: table },
  });
  return { id, status: r.status, error: String(r.body.error ?? r.body.message ?? '') };
}

/** Waits for the task to end; a timeout tells the task, its log and its target's error. */
async function ended(taskId: string) {
  try {
    return await waitTask(m, taskId, ['finished', 'error', 'cancelled', 'abnormal'], 60_000);
  } catch (err) {
    const [task, target, log] = await Promise.all([
      m.api('GET', `/tasks/${taskId}`),
      m.api('GET', `/tasks/${taskId}/data-source`),
      allLog(m, taskId),
    ]);
    throw new Error(
      `${(err as Error).message}: ${JSON.stringify({ task: task.body.data, target: target.body.data, log: log.slice(-5) })}`,
    );
  }
}

/** Columns of a table as the target database describes them, in table order. */
function describeTable(target: TargetDb, table: string) {
  return target.kind === 'postgres'
    ? target.query(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      )
    : target.query(
        `SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
        [table],
      );
}

async function tableComment(target: TargetDb, table: string): Promise<string | undefined> {
  const rows =
    target.kind === 'postgres'
      ? await target.query<{ c: string }>(`SELECT obj_description(to_regclass($1), 'pg_class') AS c`, [table])
      : await target.query<{ c: string }>(
          'SELECT TABLE_COMMENT AS c FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
          [table],
        );
  return rows[0]?.c ?? undefined;
}

describe.each(['postgres', 'mysql'] as TargetKind[])('results tables in %s', (kind) => {
  let target: TargetDb;
  let dsId: string;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    target = await openTarget(kind);
    dsId = await addDataSource(m, target);
    alice = await m.createUser(`alice-${kind}`);
    bob = await m.createUser(`bob-${kind}`);
  });
  afterAll(async () => {
    await target?.drop();
  });

  it('refuses a table Crawldeck did not create: its columns and rows stay as they were, the task ends with why', async () => {
    await target.query('CREATE TABLE operator_orders (id INT PRIMARY KEY, n INT, note VARCHAR(20))');
    await target.query("INSERT INTO operator_orders (id, n, note) VALUES (1, 7, 'keep me')");
    const before = await describeTable(target, 'operator_orders');

    const spider = await userSpider(alice, `foreign-${kind}`, dsId, 'operator_orders');
    expect(spider.status).toBe(200);
    const [taskId] = await runSpider(m, spider.id, {}, alice);
    const task = await ended(taskId);

    expect(task.status).toBe('error');
    expect(task.error).toContain('was not created by Crawldeck');
    const shown = await m.api('GET', `/tasks/${taskId}/data-source`, { token: alice });
    expect(shown.body.data.error).toContain('was not created by Crawldeck');
    expect(await describeTable(target, 'operator_orders')).toEqual(before);
    expect(await target.query('SELECT id, n, note FROM operator_orders')).toEqual([{ id: 1, n: 7, note: 'keep me' }]);
  });

  it('keeps writing into a table an earlier Crawldeck created (our columns, not yet marked)', async () => {
    const create =
      kind === 'postgres'
        ? `CREATE TABLE earlier_items (_id bigserial PRIMARY KEY, task_id varchar(24) NOT NULL, _seq bigint NOT NULL,
           _dedup char(64), n bigint, UNIQUE (task_id, _seq), UNIQUE (_dedup))`
        : `CREATE TABLE earlier_items (_id BIGINT AUTO_INCREMENT PRIMARY KEY, task_id VARCHAR(24) NOT NULL,
           _seq BIGINT NOT NULL, _dedup CHAR(64) NULL, n BIGINT, UNIQUE KEY task_seq (task_id, _seq),
           UNIQUE KEY dedup (_dedup))`;
    await target.query(create);
    const spider = await userSpider(alice, `earlier-${kind}`, dsId, 'earlier_items');
    const [taskId] = await runSpider(m, spider.id, {}, alice);
    expect((await ended(taskId)).status).toBe('finished');
    const rows = await target.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM earlier_items');
    expect(Number(rows[0].n)).toBe(20);
    // Marked as Crawldeck's now, like every table it creates.
    expect(await tableComment(target, 'earlier_items')).toBe('crawldeck:results');
  });

  it('owns a table by its database: a second entry (localhost for 127.0.0.1) cannot reach another user’s table', async () => {
    const alias = await addDataSource(m, {
      ...target,
      body: { ...target.body, name: `${String(target.body.name)}-alias`, host: 'LOCALHOST' },
    });
    const mine = await userSpider(alice, `owner-${kind}`, dsId, 'alice_items');
    expect(mine.status).toBe(200);
    const [taskId] = await runSpider(m, mine.id, {}, alice);
    expect((await ended(taskId)).status).toBe('finished');
    const before = await target.query('SELECT * FROM alice_items ORDER BY _id');
    expect(before).toHaveLength(20);

    // Through the other entry, and through the same one: refused with the reason, for the whole table name.
    for (const ds of [alias, dsId]) {
      const other = await userSpider(bob, `intruder-${kind}-${ds}`, ds, 'alice_items');
      expect(other.status).toBe(403);
      expect(other.error).toContain('belongs to another user');
    }
    expect(await target.query('SELECT * FROM alice_items ORDER BY _id')).toEqual(before);

    // Nor can a results collection named like the table's claim take it.
    const squat = await m.api('PUT', '/spiders', {
      token: bob,
      body: { name: `squat-${kind}`, cmd: 'true', type: 'customized', col: `datasource:${kind}://localhost/x` },
    });
    expect(squat.status).toBe(400);

    // Alice's own spider may use her table through either entry.
    const again = await userSpider(alice, `owner-alias-${kind}`, alias, 'alice_items');
    expect(again.status).toBe(200);
    expect(await tableComment(target, 'alice_items')).toBe('crawldeck:results');
  });
});

/**
 * A fake PostgreSQL server on a loopback port: it asks every client for its password in clear text and keeps every
 * byte it receives, then ends the connection.
 */
async function fakePostgres(): Promise<{ port: number; received: () => string; close: () => Promise<void> }> {
  const chunks: Buffer[] = [];
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.on('data', (data) => {
      chunks.push(data);
      // The startup message has no type byte; the answer to the password request starts with 'p'.
      if (data[0] === 0x70) {
        socket.destroy();
        return;
      }
      const askPassword = Buffer.alloc(9);
      askPassword.write('R', 0);
      askPassword.writeInt32BE(8, 1);
      askPassword.writeInt32BE(3, 5); // AuthenticationCleartextPassword
      socket.write(askPassword);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received: () => Buffer.concat(chunks).toString('latin1'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('testing a stored data source', () => {
  const SECRET = `stored-secret-${process.pid}`;
  let target: TargetDb;
  let dsId: string;
  let fake: Awaited<ReturnType<typeof fakePostgres>>;
  beforeAll(async () => {
    target = await openTarget('postgres');
    dsId = await addDataSource(m, { ...target, body: { ...target.body, name: 'pg-with-secret', password: SECRET } });
    fake = await fakePostgres();
  });
  afterAll(async () => {
    await fake?.close();
    await target?.drop();
  });

  it('never sends the stored password to a server the request names', async () => {
    const elsewhere = { ...target.body, id: dsId, password: '', host: '127.0.0.1', port: fake.port };
    const refused = await m.api('POST', '/data-sources-test', { body: elsewhere });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('stored password is only sent to the stored host');
    // Another user name, or TLS turned off for a stored TLS connection, is just as refused.
    expect(
      (await m.api('POST', '/data-sources-test', { body: { ...target.body, id: dsId, password: '', username: 'x' } }))
        .status,
    ).toBe(400);
    expect(fake.received()).not.toContain(SECRET);

    // The fake server does get a password typed into the form (so it would have shown the stored one).
    const typed = await m.api('POST', '/data-sources-test', { body: { ...elsewhere, password: 'typed-now' } });
    expect(typed.status).toBe(200);
    expect(typed.body.data.ok).toBe(false);
    expect(fake.received()).toContain('typed-now');
    expect(fake.received()).not.toContain(SECRET);

    // The stored server, however its host is spelled, is tested with the stored password.
    const same = await m.api('POST', '/data-sources-test', {
      body: { ...target.body, id: dsId, password: '', host: 'localhost' },
    });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ ok: true, error: '' });
  });
});

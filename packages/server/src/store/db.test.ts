import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isStoreUnavailable, openStore, preparedOnce } from './db.ts';
import { useTempDirs } from '../../test/support/temp-dirs.ts';

/** A loopback port nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('store unavailable', () => {
  const busyDir = useTempDirs('crawldeck-busy-');

  it('a PostgreSQL that refuses connections is "unavailable", and the store survives it', async () => {
    const store = openStore({
      dataDir: '/nonexistent',
      databaseUrl: `postgres://postgres@127.0.0.1:${await closedPort()}/x`,
    });
    const err = await sql`SELECT 1`.execute(store.db).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeTruthy();
    expect(isStoreUnavailable(err)).toBe(true);
    await store.close();
  });

  it('SQLite\u2019s write lock held past the busy timeout is "unavailable" (503, tried again), a constraint is not', () => {
    const file = path.join(busyDir(), 'busy.db');
    const holder = new Database(file);
    holder.pragma('journal_mode = WAL');
    holder.exec('create table t (x integer primary key)');
    const writer = new Database(file);
    writer.pragma('busy_timeout = 0');
    holder.exec('begin immediate');
    try {
      const busy = (() => {
        try {
          writer.exec('insert into t values (1)');
        } catch (err) {
          return err;
        }
      })();
      expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(isStoreUnavailable(busy)).toBe(true);
    } finally {
      holder.exec('commit');
    }
    writer.exec('insert into t values (1)');
    const duplicate = (() => {
      try {
        writer.exec('insert into t values (1)');
      } catch (err) {
        return err;
      }
    })();
    expect(isStoreUnavailable(duplicate)).toBe(false);
    writer.close();
    holder.close();
  });

  it('tells connection loss from errors of the query or of other code', async () => {
    // Server going away: admin shutdown, crash shutdown, starting up / shutting down, connection exceptions.
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300'])
      expect(isStoreUnavailable({ code }), code).toBe(true);
    expect(isStoreUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isStoreUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' })),
    ).toBe(true);
    // Not the store's availability: constraint violations, syntax errors, files, outbound connections, plain errors.
    for (const code of ['23505', '42601', '40001']) expect(isStoreUnavailable({ code }), code).toBe(false);
    const fsErr = await readFile('/nonexistent/file').catch((e: unknown) => e);
    expect(isStoreUnavailable(fsErr)).toBe(false);
    expect(
      isStoreUnavailable(
        Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect' }),
      ),
    ).toBe(false);
    expect(isStoreUnavailable(new Error('boom'))).toBe(false);
    expect(isStoreUnavailable(undefined)).toBe(false);
    expect(isStoreUnavailable('Connection terminated')).toBe(false);
  });
});

describe('SQLite statements prepared once', () => {
  const tempDir = useTempDirs('crawldeck-prepared-');
  afterEach(() => vi.restoreAllMocks());

  it('a statement text run again is not prepared again, and follows changes of the schema', async () => {
    const store = openStore({ dataDir: tempDir() });
    await sql`CREATE TABLE t (a INTEGER)`.execute(store.db);
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    for (let i = 0; i < 20; i++) await sql`INSERT INTO t (a) VALUES (${i})`.execute(store.db);
    expect(prepare).toHaveBeenCalledTimes(1);
    const all = () => sql<Record<string, unknown>>`SELECT * FROM t ORDER BY a LIMIT 1`.execute(store.db);
    expect((await all()).rows).toEqual([{ a: 0 }]);
    await sql`ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'`.execute(store.db);
    expect((await all()).rows).toEqual([{ a: 0, b: 'x' }]);
    // A stream left before its end, then the same text again.
    for await (const row of store.db
      .selectFrom('t' as never)
      .selectAll()
      .stream()) {
      expect(row).toBeTruthy();
      break;
    }
    expect(
      await store.db
        .selectFrom('t' as never)
        .selectAll()
        .execute(),
    ).toHaveLength(20);
    await store.close();
  });

  it('a statement still being read is not handed out twice; at most 500 texts are kept', () => {
    const raw = new Database(path.join(tempDir(), 'x.db'));
    const db = preparedOnce(raw);
    raw.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (3)');
    const reading = db.prepare('SELECT a FROM t') as unknown as Database.Statement;
    const rows = reading.iterate();
    expect(rows.next().value).toEqual({ a: 1 });
    const other = db.prepare('SELECT a FROM t') as unknown as Database.Statement;
    expect(other).not.toBe(reading);
    expect(other.all()).toHaveLength(3);
    expect(rows.next().value).toEqual({ a: 2 });
    rows.return?.();
    expect(db.prepare('SELECT a FROM t')).toBe(reading);
    for (let i = 0; i < 500; i++) db.prepare(`SELECT a + ${i} FROM t`);
    expect(db.prepare('SELECT a FROM t')).not.toBe(reading);
    db.close();
  });
});

import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { isStoreUnavailable, openStore } from './db.ts';

/** A loopback port nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('store unavailable', () => {
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

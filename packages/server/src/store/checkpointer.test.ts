import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from './db.ts';
import { startCheckpointer } from './checkpointer.ts';
import { useTempDirs } from '../../test/support/temp-dirs.ts';

const tempDir = useTempDirs('crawldeck-checkpoint-');

const walBytes = (store: Store) => {
  try {
    return statSync(`${store.location}-wal`).size;
  } catch {
    return 0;
  }
};

/** Commits about 2 MB of new rows through the store's own connection. */
const write2MB = (store: Store) =>
  sql`insert into t (b) select randomblob(1000) from (with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000) select x from c)`.execute(
    store.db,
  );

describe('SQLite checkpoints off the main thread', () => {
  it('the master connection never checkpoints by itself; the thread keeps the log bounded under writes', async () => {
    const store = openStore({ dataDir: tempDir() });
    try {
      const auto = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
      expect(auto.rows[0]!.wal_autocheckpoint).toBe(0);
      await sql`create table t (id integer primary key, b blob)`.execute(store.db);
      let largest = 0;
      // 40 MB in all; after each 2 MB the test waits for a round of the thread that copied those pages back.
      for (let i = 0; i < 20; i++) {
        const before = store.checkpoints!();
        await write2MB(store);
        largest = Math.max(largest, walBytes(store));
        await vi.waitFor(() => expect(store.checkpoints!().frames).toBeGreaterThan(before.frames), {
          timeout: 10_000,
          interval: 20,
        });
      }
      // Without the thread the log would hold all 40 MB; with it the log starts over after each copy.
      expect(largest).toBeLessThan(8 * 1024 * 1024);
      expect(store.checkpoints!().errors).toBe(0);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('a large log keeps its size while commits go on and is cut back once the store is quiet', async () => {
    const file = path.join(tempDir(), 'store.db');
    const conn = new Database(file);
    conn.pragma('journal_mode = WAL');
    conn.pragma('wal_autocheckpoint = 0');
    conn.pragma('journal_size_limit = -1');
    conn.exec('create table t (id integer primary key, b blob)');
    const checkpointer = startCheckpointer(file, { intervalMs: 100, keepBytes: 1024 * 1024, quietMs: 1000 });
    try {
      // One large transaction (about 4 MB of log), then a small commit every few milliseconds for ten rounds.
      conn.exec(
        'insert into t (b) select randomblob(1000) from (with recursive c(x) as (select 1 union all select x + 1 from c where x < 4000) select x from c)',
      );
      const large = statSync(`${file}-wal`).size;
      const rounds = checkpointer.stats().checkpoints;
      const insert = conn.prepare('insert into t (b) values (randomblob(100))');
      while (checkpointer.stats().checkpoints < rounds + 10) {
        insert.run();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      // The log started over (rounds asked for it) but its file kept its size: no truncation while commits go on.
      expect(checkpointer.stats().restarts).toBeGreaterThan(0);
      expect(checkpointer.stats().truncates).toBe(0);
      expect(statSync(`${file}-wal`).size).toBeGreaterThanOrEqual(large);
      // No commit since: once the store has been quiet for a second a round cuts the file back.
      // The thread counts the truncation just after cutting the file: wait for both.
      await vi.waitFor(
        () => {
          expect(statSync(`${file}-wal`).size).toBe(0);
          expect(checkpointer.stats().truncates).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 20 },
      );
    } finally {
      await checkpointer.stop();
      conn.close();
    }
  }, 60_000);

  it('a thread that ends without being stopped is reported, so SQLite can take the checkpoints back', async () => {
    // The worker opens only an existing file: this one is missing, so the thread fails at once.
    const lost = new Promise<void>((resolve) =>
      startCheckpointer(path.join(tempDir(), 'missing.db'), { onLost: resolve }),
    );
    await expect(lost).resolves.toBeUndefined();
  });

  it('left to SQLite, the connection checkpoints by itself and reports no thread', async () => {
    const store = openStore({ dataDir: tempDir(), checkpoints: 'sqlite' });
    try {
      const auto = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
      expect(auto.rows[0]!.wal_autocheckpoint).toBeGreaterThan(0);
      expect(store.checkpoints).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('closing the store stops the thread and leaves an empty log', async () => {
    const dir = tempDir();
    const store = openStore({ dataDir: dir });
    await sql`create table t (id integer primary key, b blob)`.execute(store.db);
    await write2MB(store);
    await store.close();
    const wal = path.join(dir, 'crawldeck.db-wal');
    expect(statSync(wal, { throwIfNoEntry: false })?.size ?? 0).toBe(0);
    const conn = new Database(path.join(dir, 'crawldeck.db'), { readonly: true });
    expect(conn.prepare('select count(*) as n from t').get()).toEqual({ n: 2000 });
    conn.close();
  });

  it('committed rows survive a kill -9 of the process while checkpoints run', async () => {
    const dir = tempDir();
    const dbModule = new URL('./db.ts', import.meta.url).href;
    // A writer process: commits 200 rows at a time through the store and reports each commit and the rounds so far.
    const script = `
      const { openStore } = await import(${JSON.stringify(dbModule)});
      const { sql } = await import('kysely');
      const store = openStore({ dataDir: ${JSON.stringify(dir)} });
      await sql\`create table t (id integer primary key, b blob)\`.execute(store.db);
      for (let rows = 200; ; rows += 200) {
        await sql\`insert into t (b) select randomblob(2000) from (with recursive c(x) as (select 1 union all select x + 1 from c where x < 200) select x from c)\`.execute(store.db);
        process.stdout.write(JSON.stringify({ rows, ...store.checkpoints() }) + '\\n');
        await new Promise((r) => setImmediate(r));
      }`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((r) => child.once('exit', r));
    let committed = 0;
    for await (const line of createInterface({ input: child.stdout })) {
      const r = JSON.parse(line) as { rows: number; checkpoints: number; frames: number };
      committed = r.rows;
      // Killed in the middle of the writes once the thread has copied pages back several times.
      if (r.checkpoints >= 5 && r.frames > 0) break;
    }
    child.kill('SIGKILL');
    await exited;
    expect(committed).toBeGreaterThan(0);
    const conn = new Database(path.join(dir, 'crawldeck.db'));
    expect(conn.pragma('integrity_check', { simple: true })).toBe('ok');
    const { n } = conn.prepare('select count(*) as n from t').get() as { n: number };
    conn.close();
    expect(n).toBeGreaterThanOrEqual(committed);
  }, 60_000);
});

import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore } from './db.ts';
import { useTempDirs } from '../../test/support/temp-dirs.ts';

describe("the SQLite store's page cache", () => {
  const tempDir = useTempDirs('crawldeck-cache-');

  const pragma = async (store: ReturnType<typeof openStore>, name: string) => {
    const { rows } = await sql<Record<string, number>>`PRAGMA ${sql.raw(name)}`.execute(store.db);
    return Object.values(rows[0])[0];
  };

  it("is the size the master's configuration gives, with its memory map", async () => {
    const store = openStore({ dataDir: tempDir(), sqliteCache: { cacheMb: 192, mmapMb: 64 } });
    try {
      expect(await pragma(store, 'cache_size')).toBe(-192 * 1024);
      expect(await pragma(store, 'mmap_size')).toBe(64 * 1024 * 1024);
      expect(path.basename(store.location)).toBe('crawldeck.db');
    } finally {
      await store.close();
    }
  });

  it("is the driver's own without a setting", async () => {
    const store = openStore({ dataDir: tempDir() });
    try {
      expect(await pragma(store, 'cache_size')).toBe(-16_000);
      expect(await pragma(store, 'mmap_size')).toBe(0);
    } finally {
      await store.close();
    }
  });
});

import type Database from 'better-sqlite3';

/**
 * How much of a SQLite store a connection keeps at hand. The driver's default is a page cache of 16 000 KiB and no
 * memory map: plenty for a small store, but on a store of millions of tasks the tasks table and its eleven indexes
 * are gigabytes, a task's creation and each change of its status touch a page of each index, spread over as many
 * places as there are nodes and spiders, and pages that fell out of the cache are read again from the file (from
 * the operating system's cache at best), on the master's only thread.
 *
 * Used by the master's connection and by the log indexer's for its index file. Not by the checkpoint thread (a
 * checkpoint copies the log into the file without the page cache) nor by the log search workers (a search reads one
 * task's lines once).
 */
export interface SqliteCacheSettings {
  /** Most memory the connection's page cache takes, in MiB (it grows only as pages are read). */
  cacheMb: number;
  /** How much of the database file is read through a memory map instead of read calls, in MiB; 0: none. */
  mmapMb: number;
}

/** Sets the page cache and the memory map of `conn` (of each of its databases when `schemas` names more). */
export function applySqliteCache(conn: Database.Database, s: SqliteCacheSettings, schemas = ['main']): void {
  for (const schema of schemas) {
    // A negative cache size counts KiB rather than pages, whatever the page size.
    conn.pragma(`${schema}.cache_size = ${-Math.round(s.cacheMb * 1024)}`);
    conn.pragma(`${schema}.mmap_size = ${Math.round(s.mmapMb * 1024 * 1024)}`);
  }
}

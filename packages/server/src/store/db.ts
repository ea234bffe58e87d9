import { chmodSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { DB } from './schema.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<DB>;
  engine: Engine;
  /** Human-readable location (file path or database URL without password) for the Settings → Database tab. */
  location: string;
  close(): Promise<void>;
}

// int8 (COUNT(*), bigint timestamps) would otherwise arrive as strings from pg.
pg.types.setTypeParser(20, (v) => Number(v));

export function openStore(opts: { dataDir: string; databaseUrl?: string }): Store {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, engine: 'postgres', location: opts.databaseUrl.replace(/\/\/[^@/]*@/, '//***@'), close: () => db.destroy() };
  }
  const file = path.join(opts.dataDir, 'crawldeck.db');
  const sqlite = new Database(file);
  chmodSync(file, 0o600);
  // WAL lets readers (console lists) proceed while the log ingester writes; NORMAL is durable under WAL.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, engine: 'sqlite', location: file, close: () => db.destroy() };
}

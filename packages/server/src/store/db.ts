import { chmodSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type PostgresPool,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import { CHECKPOINT_DEFAULTS, startCheckpointer, type CheckpointStats } from './checkpointer.ts';
import { applySqliteCache, type SqliteCacheSettings } from './sqlite-cache.ts';
import type { DB } from './schema.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<DB>;
  engine: Engine;
  /** Human-readable location (file path or database URL without password) for the Settings → Database tab. */
  location: string;
  close(): Promise<void>;
  /**
   * Told when a pooled PostgreSQL connection breaks while idle (the server restarted or went away). The app sets it
   * to its logger; queries that were running fail on their own and are answered 503 (see isStoreUnavailable).
   */
  onConnectionError: (err: Error) => void;
  /**
   * PostgreSQL only: the bytes `COPY (…) TO STDOUT` writes, read on a pooled connection of its own while the caller
   * takes them (exports). A caller that stops early closes that connection, which is mid-COPY.
   */
  copyOut?: (statement: string) => AsyncGenerator<Buffer>;
  /**
   * PostgreSQL only: runs `work` on a pooled connection with the driver's client, for what the query builder cannot
   * send (`COPY … FROM STDIN` for ingest, several statements in one round trip). `work` begins its transaction with
   * its first statement (`BEGIN; …`) and may commit with its last (`…; COMMIT`); a transaction it leaves open is
   * committed when it resolves and rolled back when it throws.
   */
  pgTransaction?: <T>(work: (client: pg.ClientBase) => Promise<T>) => Promise<T>;
  /** SQLite only: what the checkpointer thread has done so far (see checkpointer.ts). */
  checkpoints?: () => CheckpointStats;
}

async function* copyOutOf(pool: pg.Pool, statement: string): AsyncGenerator<Buffer> {
  const client = await pool.connect();
  let done = false;
  try {
    for await (const chunk of client.query(copyTo(statement))) yield chunk as Buffer;
    done = true;
  } finally {
    client.release(done ? undefined : new Error('COPY left unfinished'));
  }
}

async function pgTransactionOn<T>(connect: () => Promise<pg.PoolClient>, work: (c: pg.ClientBase) => Promise<T>) {
  const client = await connect();
  let broken: Error | undefined;
  try {
    const result = await work(client);
    // A failed transaction would answer COMMIT with a silent rollback: what `work` did is lost, so it is an error.
    if (client.getTransactionStatus() === 'E') throw new Error('the transaction failed and was rolled back');
    if (client.getTransactionStatus() === 'T') await client.query('COMMIT');
    return result;
  } catch (err) {
    // A connection that cannot even roll back (it broke, or is stuck mid-COPY) leaves the pool.
    if (client.getTransactionStatus() !== 'I') await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

// int8 (COUNT(*), bigint timestamps) would otherwise arrive as strings from pg.
pg.types.setTypeParser(20, (v) => Number(v));

/** A request waits at most this long for a PostgreSQL connection (a new one or a free pool slot), then gets a 503. */
const CONNECT_TIMEOUT_MS = 10_000;

const UNAVAILABLE = Symbol('store unavailable');
/** SQLSTATE of "the server is going away / not there yet": connection exceptions, shutdown, starting up, full. */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** node-postgres' own messages for a connection that died under a query. */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** SQLite's "another connection held the write lock for longer than the busy timeout": try again later. */
const SQLITE_BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT']);

/**
 * True when an error means the store cannot be reached right now (PostgreSQL stopped, restarting or unreachable;
 * SQLite's write lock held too long by another connection), not that the query was wrong: the API answers 503 and
 * background work tries again later.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { [UNAVAILABLE]?: boolean; code?: unknown; message?: unknown; syscall?: unknown };
  if (e[UNAVAILABLE]) return true;
  if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || SQLITE_BUSY_CODES.has(e.code))) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  // A socket that broke under a running query (its connection was already open, so it is the database's).
  return typeof e.code === 'string' && SOCKET_CODES.has(e.code) && (e.syscall === 'read' || e.syscall === 'write');
}

/**
 * Runs a write that must survive a short outage (the record of work already done), trying again while the store is
 * unavailable, for at most `forMs`; any other error is thrown at once.
 */
export async function retryWhileUnavailable<T>(fn: () => Promise<T>, forMs = 30_000, stepMs = 500): Promise<T> {
  const end = Date.now() + forMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isStoreUnavailable(err) || Date.now() + stepMs > end) throw err;
      await new Promise((r) => setTimeout(r, stepMs));
    }
  }
}

function openPostgres(url: string): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  // Any failure to get a connection means the store is unavailable (refused, starting up, timed out).
  const connect = () =>
    pool.connect().catch((err: unknown) => {
      if (err && typeof err === 'object') (err as { [UNAVAILABLE]?: boolean })[UNAVAILABLE] = true;
      throw err;
    });
  const marked: PostgresPool = { connect, end: () => pool.end() };
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: marked }) });
  const store: Store = {
    db,
    engine: 'postgres',
    location: url.replace(/\/\/[^@/]*@/, '//***@'),
    close: () => db.destroy(),
    onConnectionError: () => undefined,
    copyOut: (statement) => copyOutOf(pool, statement),
    pgTransaction: (work) => pgTransactionOn(connect, work),
  };
  // A broken connection emits 'error' on its client; unheard, that would end the process. Idle clients report
  // through the pool; a client in use fails its running query instead, so its own event needs no report.
  pool.on('error', (err) => store.onConnectionError(err));
  pool.on('connect', (client) => client.on('error', () => undefined));
  return store;
}

/**
 * SQLite transactions that take the write lock when they begin. The background log indexer writes through its own
 * connection; a transaction that read first and only then wrote would fail at once (SQLite cannot upgrade a read
 * snapshot another writer has moved past) instead of waiting its turn under the busy timeout.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

/** Most statement texts the SQLite connection keeps prepared; the least recently used go first. */
const PREPARED = 500;
/** Longer texts (batches of rows) are prepared each time rather than kept. */
const PREPARED_TEXT_MAX = 4_096;

/**
 * The SQLite connection prepares each statement text once and keeps it: the query builder produces the same texts
 * again and again (task transitions, dispatch claims, node writes), and preparing them anew was a measurable share
 * of the master's CPU under task load. A kept statement still being read (a stream not finished) is not shared:
 * that call prepares one of its own. SQLite prepares a kept statement again by itself when the schema changed.
 */
export function preparedOnce(sqlite: Database.Database): SqliteDatabase {
  const kept = new Map<string, Database.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const stmt = kept.get(text);
      if (stmt?.busy) return sqlite.prepare(text);
      if (stmt) {
        kept.delete(text);
        kept.set(text, stmt);
        return stmt;
      }
      const fresh = sqlite.prepare(text);
      if (text.length > PREPARED_TEXT_MAX) return fresh;
      kept.set(text, fresh);
      if (kept.size > PREPARED) kept.delete(kept.keys().next().value!);
      return fresh;
    },
  };
}

/**
 * Left to SQLite, the write-ahead log file is cut back to this size when it starts over after a complete checkpoint
 * (in the commit that starts it over). With the checkpoint thread, the thread cuts it when the store is quiet.
 */
const WAL_KEPT_BYTES = CHECKPOINT_DEFAULTS.keepBytes;

/**
 * `checkpoints`: `thread` (the default) runs write-ahead-log checkpoints on a worker thread of their own
 * (checkpointer.ts); `sqlite` leaves them to SQLite, inside the commits of the connection that writes.
 * `sqliteCache`: the page cache and memory map of the master's connection (the master passes its configuration);
 * without it, SQLite's own defaults.
 */
export function openStore(opts: {
  dataDir: string;
  databaseUrl?: string;
  checkpoints?: 'thread' | 'sqlite';
  sqliteCache?: SqliteCacheSettings;
}): Store {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  const file = path.join(opts.dataDir, 'crawldeck.db');
  const sqlite = new Database(file);
  chmodSync(file, 0o600);
  if (opts.sqliteCache) applySqliteCache(sqlite, opts.sqliteCache);
  // WAL lets readers (console lists) proceed while the log ingester writes; NORMAL is durable under WAL.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Checkpoints run on a thread of their own, never inside one of the master's commits.
  // Should the thread end on its own, SQLite checkpoints in the commits again (its default of 1 000 pages).
  const checkpointsBySqlite = () => {
    sqlite.pragma('wal_autocheckpoint = 1000');
    sqlite.pragma(`journal_size_limit = ${WAL_KEPT_BYTES}`);
  };
  const checkpointer =
    opts.checkpoints === 'sqlite'
      ? undefined
      : startCheckpointer(file, { onLost: () => sqlite.open && checkpointsBySqlite() });
  if (checkpointer) {
    sqlite.pragma('wal_autocheckpoint = 0');
    // Never cut back in a commit of the master: the thread does it when the store is quiet.
    sqlite.pragma('journal_size_limit = -1');
  } else checkpointsBySqlite();
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: preparedOnce(sqlite) }) });
  const close = async () => {
    await checkpointer?.stop();
    // The log is copied back and emptied while the master still holds the file; a failure leaves it to the next open.
    try {
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Busy: another connection (the log indexer) was still reading.
    }
    await db.destroy();
  };
  return {
    db,
    engine: 'sqlite',
    location: file,
    close,
    onConnectionError: () => undefined,
    ...(checkpointer ? { checkpoints: () => checkpointer.stats() } : {}),
  };
}

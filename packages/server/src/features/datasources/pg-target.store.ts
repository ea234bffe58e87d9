import pg from 'pg';
import { Kysely, PostgresDialect, sql, type RawBuilder, type Transaction } from 'kysely';
import { DEDUP_COLUMN, INTERNAL_COLUMNS, SEQ_COLUMN, TASK_COLUMN, type ColumnKind } from './columns.ts';
import { markOf, TABLE_MARK, type DedupMode, type TableMark, type TargetRow, type TargetWriter } from './target.ts';
import { TargetRows } from './target-rows.store.ts';
import { type ConnectionSettings, CONNECT_TIMEOUT_MS, LOCK_TIMEOUT_MS, POOL_SIZE, tlsOptions } from './connection.ts';

const PG_TYPES: Record<ColumnKind, string> = {
  boolean: 'boolean',
  bigint: 'bigint',
  double: 'double precision',
  json: 'jsonb',
  text: 'text',
};

const PG_DUPLICATE_TABLE = '42P07';
const PG_UNIQUE_VIOLATION = '23505';

function kindOfPgType(dataType: string): ColumnKind {
  switch (dataType) {
    case 'boolean':
      return 'boolean';
    case 'bigint':
    case 'integer':
    case 'smallint':
      return 'bigint';
    case 'double precision':
    case 'real':
    case 'numeric':
      return 'double';
    case 'jsonb':
    case 'json':
      return 'json';
    default:
      return 'text';
  }
}

/** Results tables in a PostgreSQL database: one jsonb parameter carries a whole batch (jsonb_to_recordset). */
export class PostgresWriter extends TargetRows implements TargetWriter {
  readonly db: Kysely<any>;
  private readonly schema: string;

  constructor(s: ConnectionSettings) {
    super();
    const pool = new pg.Pool({
      host: s.host,
      port: s.port,
      database: s.database,
      user: s.username,
      password: s.password,
      ssl: tlsOptions(s),
      max: POOL_SIZE,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      // A lock held elsewhere fails the batch (it is sent again) instead of holding the node's request.
      lock_timeout: LOCK_TIMEOUT_MS,
    });
    // A connection that breaks while idle (the server restarted) must not end the master.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    this.db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    this.schema = s.schema || 'public';
  }

  protected tableRef(name: string): RawBuilder<unknown> {
    return this.table(name);
  }

  private table(name: string): RawBuilder<unknown> {
    return sql.id(this.schema, name);
  }

  async columns(table: string): Promise<Map<string, ColumnKind> | undefined> {
    const { rows } = await sql<{ name: string; type: string }>`
      SELECT column_name AS name, data_type AS type FROM information_schema.columns
      WHERE table_schema = ${this.schema} AND table_name = ${table} ORDER BY ordinal_position`.execute(this.db);
    if (!rows.length) return undefined;
    return new Map(rows.filter((r) => !INTERNAL_COLUMNS.has(r.name)).map((r) => [r.name, kindOfPgType(r.type)]));
  }

  async ownership(table: string): Promise<TableMark | undefined> {
    const { rows } = await sql<{ oid: number; comment: string | null }>`
      SELECT c.oid, obj_description(c.oid, 'pg_class') AS comment FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${this.schema} AND c.relname = ${table} AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`.execute(
      this.db,
    );
    if (!rows.length) return undefined;
    const names = await sql<{ name: string }>`SELECT attname AS name FROM pg_attribute
      WHERE attrelid = ${rows[0].oid} AND attnum > 0 AND NOT attisdropped`.execute(this.db);
    return markOf(
      rows[0].comment,
      names.rows.map((r) => r.name),
    );
  }

  async adopt(table: string): Promise<void> {
    await sql`COMMENT ON TABLE ${this.table(table)} IS ${sql.lit(TABLE_MARK)}`.execute(this.db);
  }

  async createTable(table: string, columns: Map<string, ColumnKind>): Promise<void> {
    if (this.schema !== 'public') await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(this.schema)}`.execute(this.db);
    const fields = [...columns].map(([name, kind]) => sql`, ${sql.id(name)} ${sql.raw(PG_TYPES[kind])}`);
    try {
      // No IF NOT EXISTS: the mark goes only on a table this transaction made.
      await this.db.transaction().execute(async (trx) => {
        await sql`CREATE TABLE ${this.table(table)} (
          _id bigserial PRIMARY KEY, task_id varchar(24) NOT NULL, _seq bigint NOT NULL, _dedup char(64)
          ${sql.join(fields, sql``)}, UNIQUE (task_id, _seq), UNIQUE (_dedup))`.execute(trx);
        await sql`COMMENT ON TABLE ${this.table(table)} IS ${sql.lit(TABLE_MARK)}`.execute(trx);
      });
    } catch (err) {
      // Exists already, or another writer created it at the same moment (its catalogue row's unique key).
      const code = (err as { code?: string }).code;
      if (code !== PG_DUPLICATE_TABLE && code !== PG_UNIQUE_VIOLATION) throw err;
    }
  }

  async addColumn(table: string, name: string, kind: ColumnKind): Promise<void> {
    await sql`ALTER TABLE ${this.table(table)} ADD COLUMN IF NOT EXISTS ${sql.id(name)} ${sql.raw(PG_TYPES[kind])}`.execute(
      this.db,
    );
  }

  async widenColumn(table: string, name: string, kind: ColumnKind): Promise<void> {
    const type = sql.raw(PG_TYPES[kind]);
    await sql`ALTER TABLE ${this.table(table)} ALTER COLUMN ${sql.id(name)} TYPE ${type} USING ${sql.id(name)}::${type}`.execute(
      this.db,
    );
  }

  async storedSeqs(
    trx: Transaction<any>,
    table: string,
    taskId: string,
    from: number,
    to: number,
  ): Promise<Set<number>> {
    const { rows } = await sql<{ seq: number }>`SELECT _seq AS seq FROM ${this.table(table)}
      WHERE task_id = ${taskId} AND _seq >= ${from} AND _seq < ${to}`.execute(trx);
    return new Set(rows.map((r) => Number(r.seq)));
  }

  async insert(
    trx: Transaction<any>,
    table: string,
    columns: Map<string, ColumnKind>,
    rows: TargetRow[],
    mode: DedupMode,
  ): Promise<void> {
    if (!rows.length) return;
    const names = [...columns.keys()];
    const records = rows.map((r) => {
      const o: Record<string, unknown> = { [TASK_COLUMN]: r.task_id, [SEQ_COLUMN]: r._seq, [DEDUP_COLUMN]: r._dedup };
      for (const [k, v] of r.fields) o[k] = v;
      return o;
    });
    const defs = [
      sql`task_id text, _seq bigint, _dedup text`,
      ...[...columns].map(([n, k]) => sql`${sql.id(n)} ${sql.raw(PG_TYPES[k])}`),
    ];
    const targets = [sql`task_id, _seq, _dedup`, ...names.map((n) => sql.id(n))];
    const picks = [sql`x.task_id, x._seq, x._dedup`, ...names.map((n) => sql.id('x', n))];
    const onConflict =
      mode === 'overwrite'
        ? sql`ON CONFLICT (_dedup) DO UPDATE SET ${sql.join(['task_id', '_seq', ...names].map((n) => sql`${sql.id(n)} = EXCLUDED.${sql.id(n)}`))}`
        : sql`ON CONFLICT DO NOTHING`;
    await sql`INSERT INTO ${this.table(table)} (${sql.join(targets)})
      SELECT ${sql.join(picks)} FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS x(${sql.join(defs)})
      ORDER BY x._seq ${onConflict}`.execute(trx);
  }

  async version(): Promise<string> {
    const { rows } = await sql<{ v: string }>`SELECT version() AS v`.execute(this.db);
    return rows[0]?.v ?? '';
  }

  /** A PostgreSQL text value holds up to 1 GB, and no setting limits a statement below that. */
  maxStatementBytes(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }

  close(): Promise<void> {
    return this.db.destroy();
  }
}

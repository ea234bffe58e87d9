import { createPool } from 'mysql2';
import { Kysely, MysqlDialect, sql, type RawBuilder, type Transaction } from 'kysely';
import { asText, INTERNAL_COLUMNS, type ColumnKind } from './columns.ts';
import { markOf, TABLE_MARK, type DedupMode, type TableMark, type TargetRow, type TargetWriter } from './target.ts';
import { TargetRows } from './target-rows.store.ts';
import { type ConnectionSettings, CONNECT_TIMEOUT_MS, LOCK_TIMEOUT_MS, POOL_SIZE, tlsOptions } from './connection.ts';

/** MariaDB has no JSON type of its own (JSON is LONGTEXT with a check), so our JSON columns carry this comment. */
const JSON_COMMENT = 'crawldeck:json';
const MYSQL_TYPES: Record<ColumnKind, string> = {
  boolean: 'TINYINT(1)',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  json: `JSON COMMENT '${JSON_COMMENT}'`,
  text: 'LONGTEXT',
};
/** Rows per INSERT statement: keeps one statement well under max_allowed_packet. */
const ROWS_PER_STATEMENT = 500;
const ER_DUP_FIELDNAME = 1060;
const ER_TABLE_EXISTS = 1050;

function kindOfMysqlColumn(c: { type: string; full: string; comment: string }): ColumnKind {
  if (c.type === 'json' || c.comment === JSON_COMMENT) return 'json';
  if (c.full.startsWith('tinyint(1)')) return 'boolean';
  if (['bigint', 'int', 'mediumint', 'smallint', 'tinyint'].includes(c.type)) return 'bigint';
  if (['double', 'float', 'decimal'].includes(c.type)) return 'double';
  return 'text';
}

function cell(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (kind === 'json') return JSON.stringify(value);
  if (kind === 'text') return asText(value);
  if (kind === 'boolean') return value ? 1 : 0;
  return value;
}

function readStoredCell(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (kind === 'json' && typeof value === 'string') return JSON.parse(value);
  if (kind === 'boolean') return !!value;
  return value;
}

/** Results tables in a MySQL or MariaDB database (utf8mb4, InnoDB). Column names compare without case there. */
export class MysqlWriter extends TargetRows implements TargetWriter {
  readonly db: Kysely<any>;
  /** max_allowed_packet as read (null: none told). */
  private packet: number | null | undefined;

  protected tableRef(name: string): RawBuilder<unknown> {
    return sql.table(name);
  }

  protected override readCell(kind: ColumnKind, value: unknown): unknown {
    return readStoredCell(kind, value);
  }

  constructor(s: ConnectionSettings) {
    super();
    const ssl = tlsOptions(s);
    const pool = createPool({
      host: s.host,
      port: s.port,
      database: s.database,
      user: s.username,
      password: s.password,
      ...(ssl ? { ssl } : {}),
      connectionLimit: POOL_SIZE,
      connectTimeout: CONNECT_TIMEOUT_MS,
      charset: 'utf8mb4_unicode_ci',
      supportBigNumbers: true,
    });
    pool.on('connection', (conn) => {
      conn.on('error', () => undefined);
      // A lock held elsewhere fails the batch (it is sent again) instead of holding the node's request.
      const seconds = LOCK_TIMEOUT_MS / 1000;
      conn.query(`SET SESSION lock_wait_timeout = ${seconds}, innodb_lock_wait_timeout = ${seconds}`);
    });
    this.db = new Kysely<any>({ dialect: new MysqlDialect({ pool }) });
  }

  async columns(table: string): Promise<Map<string, ColumnKind> | undefined> {
    const { rows } = await sql<{ name: string; type: string; full: string; comment: string }>`
      SELECT COLUMN_NAME AS name, DATA_TYPE AS type, COLUMN_TYPE AS full, COLUMN_COMMENT AS comment
      FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${table}
      ORDER BY ORDINAL_POSITION`.execute(this.db);
    if (!rows.length) return undefined;
    return new Map(
      rows
        .filter((r) => !INTERNAL_COLUMNS.has(r.name))
        .map((r) => [
          r.name,
          kindOfMysqlColumn({
            type: String(r.type).toLowerCase(),
            full: String(r.full).toLowerCase(),
            comment: String(r.comment),
          }),
        ]),
    );
  }

  async ownership(table: string): Promise<TableMark | undefined> {
    const { rows } = await sql<{
      comment: string | null;
    }>`SELECT TABLE_COMMENT AS comment FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${table}`.execute(this.db);
    if (!rows.length) return undefined;
    const names = await sql<{ name: string }>`SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${table}`.execute(this.db);
    return markOf(
      rows[0].comment,
      names.rows.map((r) => r.name),
    );
  }

  async adopt(table: string): Promise<void> {
    await sql`ALTER TABLE ${sql.table(table)} COMMENT = ${sql.lit(TABLE_MARK)}`.execute(this.db);
  }

  async createTable(table: string, columns: Map<string, ColumnKind>): Promise<void> {
    const fields = [...columns].map(([name, kind]) => sql`, ${sql.id(name)} ${sql.raw(MYSQL_TYPES[kind])}`);
    try {
      // No IF NOT EXISTS: the mark goes only on a table this statement made.
      await sql`CREATE TABLE ${sql.table(table)} (
        _id BIGINT AUTO_INCREMENT PRIMARY KEY, task_id VARCHAR(24) NOT NULL, _seq BIGINT NOT NULL, _dedup CHAR(64) NULL
        ${sql.join(fields, sql``)}, UNIQUE KEY task_seq (task_id, _seq), UNIQUE KEY dedup (_dedup))
        ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci COMMENT=${sql.lit(TABLE_MARK)}`.execute(
        this.db,
      );
    } catch (err) {
      if ((err as { errno?: number }).errno !== ER_TABLE_EXISTS) throw err;
    }
  }

  async addColumn(table: string, name: string, kind: ColumnKind): Promise<void> {
    try {
      await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN ${sql.id(name)} ${sql.raw(MYSQL_TYPES[kind])}`.execute(
        this.db,
      );
    } catch (err) {
      // Another master or task added it meanwhile.
      if ((err as { errno?: number }).errno !== ER_DUP_FIELDNAME) throw err;
    }
  }

  async widenColumn(table: string, name: string, kind: ColumnKind): Promise<void> {
    await sql`ALTER TABLE ${sql.table(table)} MODIFY COLUMN ${sql.id(name)} ${sql.raw(MYSQL_TYPES[kind])}`.execute(
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
    const { rows } = await sql<{ seq: number }>`SELECT _seq AS seq FROM ${sql.table(table)}
      WHERE task_id = ${taskId} AND _seq >= ${from} AND _seq < ${to} FOR UPDATE`.execute(trx);
    return new Set(rows.map((r) => Number(r.seq)));
  }

  async insert(
    trx: Transaction<any>,
    table: string,
    columns: Map<string, ColumnKind>,
    rows: TargetRow[],
    mode: DedupMode,
  ): Promise<void> {
    const names = [...columns.keys()];
    const targets = sql.join([sql`task_id, _seq, _dedup`, ...names.map((n) => sql.id(n))]);
    const onDuplicate =
      mode === 'overwrite'
        ? sql`ON DUPLICATE KEY UPDATE ${sql.join(['task_id', '_seq', ...names].map((n) => sql`${sql.id(n)} = VALUES(${sql.id(n)})`))}`
        : mode === 'ignore'
          ? sql`ON DUPLICATE KEY UPDATE _id = _id`
          : sql``;
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const values = rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => {
        const cells = [r.task_id, r._seq, r._dedup, ...names.map((n) => cell(columns.get(n)!, r.fields.get(n)))];
        return sql`(${sql.join(cells)})`;
      });
      await sql`INSERT INTO ${sql.table(table)} (${targets}) VALUES ${sql.join(values)} ${onDuplicate}`.execute(trx);
    }
  }

  async version(): Promise<string> {
    const { rows } = await sql<{ v: string }>`SELECT VERSION() AS v`.execute(this.db);
    return rows[0]?.v ?? '';
  }

  /** max_allowed_packet: a longer statement is refused and its connection closed. Read once per pool. */
  async maxStatementBytes(): Promise<number | undefined> {
    if (this.packet === undefined) {
      const { rows } = await sql<{ p: number | string }>`SELECT @@max_allowed_packet AS p`.execute(this.db);
      const bytes = Number(rows[0]?.p);
      this.packet = Number.isFinite(bytes) && bytes > 0 ? bytes : null;
    }
    return this.packet ?? undefined;
  }

  close(): Promise<void> {
    return this.db.destroy();
  }
}

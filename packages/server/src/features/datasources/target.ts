import type { Kysely, Transaction } from 'kysely';
import type { ColumnKind } from './columns.ts';

/** A row for a results table: our columns plus the item's fields by column name, values already fitted. */
export interface TargetRow {
  task_id: string;
  _seq: number;
  _dedup: string | null;
  fields: Map<string, unknown>;
}

export type DedupMode = 'none' | 'ignore' | 'overwrite';

/** A stored row read back: the id, the task and the non-null fields by column name. */
export interface StoredRow {
  id: number;
  taskId: string;
  fields: Record<string, unknown>;
}

/**
 * What differs between PostgreSQL and MySQL/MariaDB when writing and reading a results table. Everything here is
 * one statement or one transaction; the ingest logic (which rows, which columns) lives in the service.
 */
export interface TargetWriter {
  readonly db: Kysely<any>;
  /** The table's item columns (not ours) and their kinds in table order, or undefined when the table does not exist. */
  columns(table: string): Promise<Map<string, ColumnKind> | undefined>;
  /** Creates the table (if missing) with our columns, its unique keys and the given item columns. */
  createTable(table: string, columns: Map<string, ColumnKind>): Promise<void>;
  addColumn(table: string, name: string, kind: ColumnKind): Promise<void>;
  /** Changes a column to a wider kind, converting what it holds. */
  widenColumn(table: string, name: string, kind: ColumnKind): Promise<void>;
  /** Sequence numbers of the task already stored in [from, to) (a batch sent again after a lost answer). */
  storedSeqs(trx: Transaction<any>, table: string, taskId: string, from: number, to: number): Promise<Set<number>>;
  /** Inserts rows; with a dedupe mode, a row whose _dedup is taken is skipped (ignore) or replaces it (overwrite). */
  insert(
    trx: Transaction<any>,
    table: string,
    columns: Map<string, ColumnKind>,
    rows: TargetRow[],
    mode: DedupMode,
  ): Promise<void>;
  /** Rows of the task with a sequence number in [from, to). */
  countSeqs(trx: Transaction<any>, table: string, taskId: string, from: number, to: number): Promise<number>;
  countTask(table: string, taskId: string): Promise<number>;
  /** A page of the task's rows in id order, after id `afterId` or at `offset`. */
  rows(
    table: string,
    columns: Map<string, ColumnKind>,
    taskId: string,
    page: { limit: number; offset?: number; afterId?: number },
  ): Promise<StoredRow[]>;
  version(): Promise<string>;
  /** The longest statement the database takes, in bytes, when it has a limit below its largest value. */
  maxStatementBytes(): Promise<number | undefined>;
  close(): Promise<void>;
}

import type { Kysely, Transaction } from 'kysely';
import { INTERNAL_COLUMNS, type ColumnKind } from './columns.ts';

/**
 * Crawldeck writes only into tables it created: a table it creates carries this comment (a table comment lives in
 * the database itself, on MariaDB/MySQL and PostgreSQL alike, and survives any restart). A table without it is
 * someone else's: Crawldeck never writes into it, never changes or adds its columns.
 */
export const TABLE_MARK = 'crawldeck:results';

/**
 * Whose an existing table is: ours (marked), made by an earlier Crawldeck that did not mark its tables yet (no
 * comment and all of our own columns, which no other program names so), or foreign.
 */
export type TableMark = 'ours' | 'earlier' | 'foreign';

export function markOf(comment: string | null | undefined, columnNames: readonly string[]): TableMark {
  if (comment === TABLE_MARK) return 'ours';
  const names = new Set(columnNames);
  if (!comment && [...INTERNAL_COLUMNS].every((c) => names.has(c))) return 'earlier';
  return 'foreign';
}

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
  /** Whose the table is, or undefined when there is no table (or view) of that name. */
  ownership(table: string): Promise<TableMark | undefined>;
  /** Marks a table an earlier Crawldeck created as ours. */
  adopt(table: string): Promise<void>;
  /**
   * Creates the table, marked as ours, with our columns, its unique keys and the given item columns; does nothing
   * when a table of that name exists already (whoever made it: the caller looks at its mark again).
   */
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

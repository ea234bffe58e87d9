import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { ColumnKind } from './columns.ts';
import type { StoredRow } from './target.ts';

/**
 * The reads every SQL data source answers the same way: how many rows of a task a batch or the whole task stored,
 * and a page of a task's rows. Each engine names its tables its own way and may turn a stored cell back into the
 * value the spider yielded.
 */
export abstract class TargetRows {
  abstract readonly db: Kysely<any>;

  /** The table as the engine names it in a statement (schema-qualified on PostgreSQL). */
  protected abstract tableRef(name: string): RawBuilder<unknown>;

  /** A stored cell as the spider yielded it. */
  protected readCell(_kind: ColumnKind, value: unknown): unknown {
    return value;
  }

  async countSeqs(trx: Transaction<any>, table: string, taskId: string, from: number, to: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${this.tableRef(table)}
      WHERE task_id = ${taskId} AND _seq >= ${from} AND _seq < ${to}`.execute(trx);
    return Number(rows[0]?.n ?? 0);
  }

  async countTask(table: string, taskId: string): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${this.tableRef(table)}
      WHERE task_id = ${taskId}`.execute(this.db);
    return Number(rows[0]?.n ?? 0);
  }

  async rows(
    table: string,
    columns: Map<string, ColumnKind>,
    taskId: string,
    page: { limit: number; offset?: number; afterId?: number },
  ): Promise<StoredRow[]> {
    const after = page.afterId !== undefined ? sql`AND _id > ${page.afterId}` : sql``;
    const offset = page.offset ? sql`OFFSET ${page.offset}` : sql``;
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${this.tableRef(table)}
      WHERE task_id = ${taskId} ${after} ORDER BY _id LIMIT ${page.limit} ${offset}`.execute(this.db);
    return rows.map((r) => {
      const { _id, task_id, _seq, _dedup, ...raw } = r;
      void _seq;
      void _dedup;
      const fields: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(raw)) fields[k] = this.readCell(columns.get(k) ?? 'text', v);
      return { id: Number(_id), taskId: String(task_id), fields };
    });
  }
}

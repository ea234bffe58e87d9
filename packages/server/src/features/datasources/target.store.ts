import type { ColumnKind } from './columns.ts';
import type { DedupMode, TargetRow, TargetWriter } from './target.ts';

/**
 * Stores one batch of a task's rows in a results table in one transaction: rows whose sequence number is already
 * there (a batch sent again after a lost answer) are skipped, and the answer is how many rows of the batch's
 * range the table holds afterwards.
 */
export function storeBatch(
  writer: TargetWriter,
  batch: { table: string; columns: Map<string, ColumnKind>; rows: TargetRow[]; mode: DedupMode },
  range: { taskId: string; from: number; to: number },
): Promise<number> {
  const { table, columns, rows, mode } = batch;
  const { taskId, from, to } = range;
  return writer.db.transaction().execute(async (trx) => {
    const have = await writer.storedSeqs(trx, table, taskId, from, to);
    await writer.insert(
      trx,
      table,
      columns,
      rows.filter((r) => !have.has(r._seq)),
      mode,
    );
    return writer.countSeqs(trx, table, taskId, from, to);
  });
}

import type { Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { DB } from './schema.ts';

/**
 * One page of a list and the number of rows of the whole list, from the same query: the page adds LIMIT/OFFSET,
 * the count drops the selection and order. `query` holds the filters and the order of the list.
 */
export async function pageWithTotal<TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: { limit: number; offset: number },
): Promise<{ rows: O[]; total: number }> {
  const counted = query
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll<number>().as('n'));
  const [rows, count] = await Promise.all([
    query.limit(page.limit).offset(page.offset).execute(),
    counted.executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number((count as { n: number | string }).n) };
}

/** Runs `work` in one transaction: all its writes happen or none. */
export function inTransaction<T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}

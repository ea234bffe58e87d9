import { sql, type SelectQueryBuilder } from 'kysely';

/** One page of a list: LIMIT / OFFSET as the paging helper of the HTTP layer computes them. */
export interface PageWindow {
  limit: number;
  offset: number;
}

/** The part of a select query a page needs: a limit, an offset, the rows. */
interface Pageable<O> {
  limit(n: number): { offset(n: number): { execute(): Promise<O[]> } };
}

/**
 * The recurring list shape: the rows of one page and how many rows the whole list has, both from the same
 * filtered query `base` (two statements, run together). `rows` adds the selection and the order to it.
 */
export async function pageWithCount<DB, TB extends keyof DB, O>(
  base: SelectQueryBuilder<DB, TB, object>,
  rows: (q: SelectQueryBuilder<DB, TB, object>) => Pageable<O>,
  page: PageWindow,
): Promise<{ rows: O[]; total: number }> {
  const [list, count] = await Promise.all([
    rows(base).limit(page.limit).offset(page.offset).execute(),
    base.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst(),
  ]);
  return { rows: list, total: Number((count as { n?: number | string } | undefined)?.n ?? 0) };
}

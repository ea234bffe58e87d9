import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';

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
 * For lists of small tables; lists that grow with the data page by keyset (`keysetPage`).
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

/**
 * Where a keyset page starts: `after` a row (the rows that follow it in the list's order), `before` a row (the rows
 * that precede it) or at the `last` page. The key is the row's sort key, ending on its unique id.
 */
export type Keyset<K extends unknown[] = unknown[]> = { dir: 'after' | 'before'; key: K } | { dir: 'last' };

/** The order of a list: its sort key columns (the last one unique), all ascending or all descending. */
export interface ListOrder {
  columns: string[];
  desc: boolean;
}

/** A page of a keyset list and where the pages next to it start (null where there is none). */
export interface KeysetPage<O> {
  rows: O[];
  next: Keyset | null;
  prev: Keyset | null;
}

/** Rows whose sort key lies beyond `key` by `op`, as a range on the leading column an index can walk. */
function beyond(columns: string[], key: unknown[], op: '<' | '>'): RawBuilder<SqlBool> {
  const [col, ...rest] = columns;
  const ref = sql.ref(col);
  if (!rest.length) return sql<SqlBool>`${ref} ${sql.raw(op)} ${key[0]}`;
  const inner = beyond(rest, key.slice(1), op);
  return sql<SqlBool>`(${ref} ${sql.raw(op + '=')} ${key[0]} and (${ref} ${sql.raw(op)} ${key[0]} or ${inner}))`;
}

function ordered<DB, TB extends keyof DB, O>(q: SelectQueryBuilder<DB, TB, O>, order: ListOrder, forward: boolean) {
  const dir = order.desc === forward ? 'desc' : 'asc';
  for (const col of order.columns) q = q.orderBy(sql.ref(col), dir);
  return q;
}

/**
 * A list's rows as one query, or as the union of disjoint parts (sources a caller may read, each an index range):
 * the parts give sort keys only, `load` reads the rows of one page by their ids (the last key column).
 */
export type RowSource<O> =
  | SelectQueryBuilder<any, any, O>
  | { db: Kysely<any>; parts: SelectQueryBuilder<any, any, object>[]; load(ids: unknown[]): Promise<O[]> };

/**
 * The first `n` rows after skipping `offset`, in the list's order (`forward`) or against it, beyond `from` when
 * given. A union walks each part's own index range for at most `offset + n` keys, orders and cuts the keys, then
 * reads the page's rows: the cost follows the number of parts and the page, never the size of the table.
 */
async function fetchRows<O>(
  source: RowSource<O>,
  order: ListOrder,
  forward: boolean,
  from: unknown[] | undefined,
  n: number,
  offset: number,
): Promise<O[]> {
  const shape = <Q extends SelectQueryBuilder<any, any, any>>(q: Q): Q =>
    ordered(from ? q.where(beyond(order.columns, from, order.desc === forward ? '<' : '>')) : q, order, forward) as Q;
  if (!('parts' in source)) return shape(source).limit(n).offset(offset).execute();
  const [head, ...rest] = source.parts.map((q, i) =>
    source.db
      .selectFrom(
        shape(q.select(order.columns.map((c) => sql.ref(c).as(c))))
          .limit(offset + n)
          .as(`part${i}`),
      )
      .selectAll(),
  );
  const union = rest.reduce((u, q) => u.unionAll(q), head);
  const keys = await ordered(source.db.selectFrom(union.as('merged')).selectAll(), order, forward)
    .limit(n)
    .offset(offset)
    .execute();
  const idCol = order.columns[order.columns.length - 1];
  const ids = keys.map((k: Record<string, unknown>) => k[idCol]);
  const byId = new Map((await source.load(ids)).map((r) => [(r as Record<string, unknown>)[idCol], r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * One page of `source` (filters and selection, no order) from a cursor: the rows after or before a key, or the
 * last page. Each page is one index range walk of `limit + 1` rows (per part), whatever the size of the list.
 */
export async function keysetPage<O>(
  source: RowSource<O>,
  order: ListOrder,
  at: Keyset | undefined,
  limit: number,
  keyOf: (row: O) => unknown[],
): Promise<KeysetPage<O>> {
  const forward = !at || at.dir === 'after';
  const from = at && at.dir !== 'last' ? at.key : undefined;
  const got = await fetchRows(source, order, forward, from, limit + 1, 0);
  const more = got.length > limit;
  const rows = forward ? got.slice(0, limit) : got.slice(0, limit).reverse();
  const first = rows[0];
  const last = rows[rows.length - 1];
  const after = (r: O | undefined): Keyset | null => (r ? { dir: 'after', key: keyOf(r) } : null);
  const before = (r: O | undefined): Keyset | null => (r ? { dir: 'before', key: keyOf(r) } : null);
  if (forward) return { rows, next: more ? after(last) : null, prev: at ? before(first) : null };
  return { rows, next: at?.dir === 'last' ? null : after(last), prev: more ? before(first) : null };
}

/** A page by number (`offset` rows in), with the cursors of the pages next to it; for the first pages of a list. */
export async function offsetPage<O>(
  source: RowSource<O>,
  order: ListOrder,
  page: PageWindow,
  keyOf: (row: O) => unknown[],
): Promise<KeysetPage<O>> {
  const got = await fetchRows(source, order, true, undefined, page.limit + 1, page.offset);
  const rows = got.slice(0, page.limit);
  const next = got.length > page.limit ? { dir: 'after' as const, key: keyOf(rows[rows.length - 1]) } : null;
  const prev = page.offset > 0 && rows.length ? { dir: 'before' as const, key: keyOf(rows[0]) } : null;
  return { rows, next, prev };
}

/** How many rows `q` has, counted up to `cap` + 1 at most: a count that costs the same on any size of table. */
export async function cappedCount<DB, TB extends keyof DB, O>(
  db: Kysely<DB>,
  q: SelectQueryBuilder<DB, TB, O>,
  cap: number,
): Promise<{ total: number; capped: boolean }> {
  const window = q
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`1`.as('one'))
    .limit(cap + 1);
  const row = await (db as unknown as Kysely<Record<string, never>>)
    .selectFrom(window.as('w'))
    .select(sql<number | string>`count(*)`.as('n'))
    .executeTakeFirst();
  const n = Number(row?.n ?? 0);
  return n > cap ? { total: cap, capped: true } : { total: n, capped: false };
}

/**
 * How many rows several disjoint queries have together, counted up to `cap`: each is counted up to what the cap
 * leaves, and counting stops as soon as the sum passes it.
 */
export async function disjointCappedCount<DB>(
  db: Kysely<DB>,
  parts: SelectQueryBuilder<DB, any, unknown>[],
  cap: number,
): Promise<{ total: number; capped: boolean }> {
  let total = 0;
  for (const part of parts) {
    const c = await cappedCount(db, part, cap - total);
    total += c.total;
    if (c.capped) return { total: cap, capped: true };
  }
  return { total, capped: false };
}

import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** Items of a task in the built-in store (`results`, one JSON document per row). */
export function builtinResultsPage(
  db: Kysely<DB>,
  taskId: string,
  page: { limit: number; offset?: number; afterId?: number },
) {
  let q = db.selectFrom('results').select(['id', 'data']).where('task_id', '=', taskId);
  if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
  q = q.orderBy('id').limit(page.limit);
  if (page.offset) q = q.offset(page.offset);
  return q.execute();
}

export async function builtinResultsCount(db: Kysely<DB>, taskId: string): Promise<number> {
  const r = await db
    .selectFrom('results')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('task_id', '=', taskId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

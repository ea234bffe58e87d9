import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { Filter } from '../../policies/types.ts';
import { pageWithCount, type PageWindow } from '../../store/page.ts';

export type DeployRow = Selectable<DB['deploys']>;

/** Deploys the caller may read (`readable`, from the deploy policy), of one spider when given, latest first. */
export function listDeploys(
  db: Kysely<DB>,
  readable: Filter<'deploys'>,
  spiderId: string | undefined,
  page: PageWindow,
) {
  let q = db.selectFrom('deploys').where(readable);
  if (spiderId) q = q.where('spider_id', '=', spiderId);
  return pageWithCount(q, (b) => b.selectAll().orderBy('finish_ts', 'desc').orderBy('id', 'desc'), page);
}

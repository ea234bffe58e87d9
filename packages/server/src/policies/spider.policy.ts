/**
 * Spiders: administrators do everything; a normal user reads and runs their own spiders and public ones, and
 * changes (edit, files, delete, Git) only their own. Every other resource that hangs off a spider (its tasks, logs,
 * results, schedules, deploys, stats, events) asks this policy whether the caller may read the spider.
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { forbidden, notFound } from '../http/errors.ts';
import type { SpiderRow } from '../features/spiders/spiders.store.ts';
import { everything, isAdmin, type Access, type Actor, type Filter } from './types.ts';
import { findSpiderFacts, findSpiderRow, spiderIdsWhere } from './policies.store.ts';

/** 'write' is the historical name of 'change' used by the spider routes. */
export type SpiderAccess = Access | 'write';

type SpiderFacts = Pick<SpiderRow, 'owner_id' | 'is_public'>;

export function canSpider(actor: Actor, row: SpiderFacts, access: SpiderAccess): boolean {
  if (isAdmin(actor) || row.owner_id === actor.id) return true;
  return (access === 'read' || access === 'run') && row.is_public === 1;
}

/** Spiders the caller may read (and run): list queries, counts and sub-queries of other resources. */
export function spiderReadFilter(actor: Actor): Filter<'spiders'> {
  return (eb) =>
    isAdmin(actor) ? everything : eb.or([eb('spiders.owner_id', '=', actor.id), eb('spiders.is_public', '=', 1)]);
}

/** The ids of the spiders the caller may read, as a sub-query for `eb('x.spider_id', 'in', …)` on other tables. */
export function readableSpiderIds<T extends keyof DB>(eb: ExpressionBuilder<DB, T>, actor: Actor) {
  return spiderIdsWhere(eb, spiderReadFilter(actor));
}

/**
 * Loads a spider for the caller. A spider the caller may not read (another user's private one) answers exactly as
 * an unknown id, 404, so that nobody learns which private spiders exist; 403 only when the caller sees the spider
 * (a public one of another user) but may not change it.
 */
export async function spiderFor(db: Kysely<DB>, actor: Actor, id: string, access: SpiderAccess): Promise<SpiderRow> {
  const row = await findSpiderRow(db, id);
  if (!row || !canSpider(actor, row, 'read')) throw notFound('spider');
  if (canSpider(actor, row, access)) return row;
  throw forbidden('forbidden: only the owner or an administrator may change this spider');
}

/** Whether the caller may read the spider with this id (false when it does not exist). */
export async function canReadSpiderId(db: Kysely<DB>, actor: Actor, id: string): Promise<boolean> {
  if (isAdmin(actor)) return true;
  const row = await findSpiderFacts(db, id);
  return !!row && canSpider(actor, row, 'read');
}

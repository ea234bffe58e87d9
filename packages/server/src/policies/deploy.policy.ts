/** Deploys (a spider's files sent to a node): readable by whoever may read the spider; nobody edits them. */
import { readableSpiderIds } from './spider.policy.ts';
import { everything, isAdmin, type Actor, type Filter } from './types.ts';

export function deployReadFilter(actor: Actor): Filter<'deploys'> {
  return (eb) => (isAdmin(actor) ? everything : eb('deploys.spider_id', 'in', readableSpiderIds(eb, actor)));
}

import type { SpiderTargetBody, SpiderTargetInfo, TaskTargetInfo } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { iso } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import { claimDataSourceTable, spiderOwner } from '../../policies/index.ts';
import type { SpiderRow } from '../spiders/spiders.store.ts';
import { getDataSource, getSpiderTarget, putSpiderTarget } from './datasources.store.ts';
import { tableIdentity } from '@crawldeck/shared';
import { defaultTable, recordTaskTarget } from './ingest.service.ts';

export async function spiderTarget(ctx: AppContext, spider: SpiderRow): Promise<SpiderTargetInfo> {
  const t = await getSpiderTarget(ctx.store.db, spider.id);
  if (!t) return { data_source_id: '', result_table: '', table: '' };
  return {
    data_source_id: t.data_source_id,
    result_table: t.table_name,
    table: t.table_name || defaultTable(spider.col, spider.name),
  };
}

/**
 * Points a spider's later tasks at a data source and table (tasks already created keep theirs). The table is
 * claimed for the spider's owner, like a results collection, as the real database it is in (whichever entry names it).
 */
export async function setSpiderTarget(
  ctx: AppContext,
  spider: SpiderRow,
  body: SpiderTargetBody,
): Promise<SpiderTargetInfo> {
  const db = ctx.store.db;
  if (body.data_source_id) {
    const ds = await getDataSource(db, body.data_source_id);
    if (!ds) throw badRequest('the data source does not exist');
    const owner = await spiderOwner(db, spider.owner_id);
    if (!owner) throw badRequest('the owner of this spider no longer exists');
    const table = body.result_table || defaultTable(spider.col, spider.name);
    await claimDataSourceTable(db, owner, { identity: tableIdentity(ds, table), name: table });
  }
  await putSpiderTarget(db, spider.id, body.data_source_id, body.data_source_id ? body.result_table : '');
  return spiderTarget(ctx, spider);
}

export async function taskTarget(ctx: AppContext, taskId: string): Promise<TaskTargetInfo> {
  const t = await recordTaskTarget(ctx, taskId);
  const ds = t?.data_source_id ? await getDataSource(ctx.store.db, t.data_source_id) : undefined;
  return {
    data_source_id: t?.data_source_id ?? '',
    data_source_name: t?.data_source_id ? (ds?.name ?? '') : 'Crawldeck',
    type: t?.data_source_id ? (ds?.type ?? '') : 'builtin',
    table: t?.table_name ?? '',
    error: t?.error ?? '',
    error_ts: iso(t?.error_ts),
  };
}

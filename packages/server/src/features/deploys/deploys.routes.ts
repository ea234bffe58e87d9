import { DeployListQuery, DeployListResponse, type DeployInfo } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { deployReadFilter } from '../../policies/index.ts';
import { nodeNames } from '../tasks/tasks.store.ts';
import { listDeploys, type DeployRow } from './deploys.store.ts';

function presentDeploy(r: DeployRow, nodeName: string): DeployInfo {
  return {
    _id: r.id,
    spider_id: r.spider_id,
    node_id: r.node_id,
    node_name: nodeName,
    task_id: r.task_id,
    files_total: r.files_total,
    files_changed: r.files_changed,
    bytes: Number(r.bytes),
    error: r.error,
    create_ts: iso(r.create_ts),
    finish_ts: iso(r.finish_ts),
  };
}

/** Deploys: which files of which spider went to which node for which task, newest first. */
export const deploysFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  app.get(
    '/api/deploys',
    { config: { access: 'user' }, schema: { querystring: DeployListQuery, response: { 200: DeployListResponse } } },
    async (req) => {
      const { rows, total } = await listDeploys(
        db,
        deployReadFilter(req.user),
        req.query.spider_id,
        paging(req.query, 10),
      );
      const names = await nodeNames(
        db,
        rows.map((r) => r.node_id),
      );
      return ok(
        rows.map((r) => presentDeploy(r, names.get(r.node_id) ?? '')),
        total,
      );
    },
  );
};

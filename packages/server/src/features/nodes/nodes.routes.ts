import { timingSafeEqual, createHash } from 'node:crypto';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Selectable } from 'kysely';
import { NODE_ID_HEADER, NODE_KEY_HEADER, NodeEditBody, type NodeInfo, type ShipAck, pageFields } from '@crawldeck/shared';
import { ShipBody } from '@crawldeck/shared';
import type { AppContext, Feature } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { HttpError, conflict, notFound, unauthorized } from '../../http/errors.ts';
import { onMasterListening, type RunningMaster } from '../../master.ts';
import { getRuntime } from '../tasks/runtime.ts';
import { blobContent, spiderForTask } from '../tasks/spider-source.ts';
import { ingestItems, ingestLogs } from '../tasks/tasks.store.ts';
import { presentTasks } from '../tasks/tasks.routes.ts';
import { nodeFor, taskReadFilter } from '../../policies/index.ts';
import { joinCommand, masterUrl } from '../node-install/node-install.service.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });

/** Constant-time comparison of the presented node key with the master's. */
export function nodeKeyMatches(ctx: AppContext, presented: string | undefined): boolean {
  if (!presented) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(ctx.config.nodeKey).digest();
  return timingSafeEqual(a, b);
}

function nodeAuth(ctx: AppContext, req: FastifyRequest): string {
  const key = req.headers[NODE_KEY_HEADER];
  if (!nodeKeyMatches(ctx, Array.isArray(key) ? key[0] : key)) throw unauthorized('unauthorized: bad node key');
  const id = req.headers[NODE_ID_HEADER];
  return (Array.isArray(id) ? id[0] : id) ?? '';
}

export function presentNode(n: Selectable<DB['nodes']>, liveStatus?: NodeInfo['status']): NodeInfo {
  return {
    _id: n.id,
    name: n.name,
    description: n.description,
    type: n.type,
    is_master: n.type === 'master',
    status: liveStatus ?? n.status,
    enabled: n.enabled === 1,
    max_runners: n.max_runners,
    running: n.running,
    ip: n.ip,
    systemInfo: JSON.parse(n.system_info || 'null'),
    metrics: JSON.parse(n.metrics || 'null'),
    last_seen_ts: iso(n.last_seen_ts),
    create_ts: iso(n.create_ts),
    update_ts: iso(n.update_ts),
  };
}

// The embedded node of type `master`: started once per master, over the same WebSocket a worker uses.
// Registered on the first app build (not at import: master.ts imports the features, so it is mid-load then).
let embeddedHookRegistered = false;
const embeddedNodeHook = async (m: RunningMaster) => {
  if (!m.config.embeddedNode) return;
  const { startNode } = await import('@crawldeck/node');
  const node = await startNode({
    master: m.url,
    key: m.config.nodeKey,
    dataDir: path.join(m.config.dataDir, 'node'),
    type: 'master',
    name: 'master',
    log: (level, msg, extra) => m.app.log[level]({ ...(extra ?? {}), embeddedNode: true }, msg),
  });
  m.ctx.onClose(() => node.stop());
};

/** Node registry, the node control socket, bulk endpoints for nodes, and the node API of spec §7 "Nodes". */
export const nodesFeature: Feature = async (app, ctx) => {
  const { db } = ctx.store;
  if (!embeddedHookRegistered) {
    embeddedHookRegistered = true;
    onMasterListening(embeddedNodeHook);
  }
  const rt = getRuntime(ctx);
  await rt.start();
  ctx.onClose(() => rt.close());

  // ------------------------------------------------------------------------ node control + bulk (node key)

  app.get('/api/nodes/connect', { websocket: true, config: { access: 'node' } }, (socket, req) => {
    const key = req.headers[NODE_KEY_HEADER];
    if (!nodeKeyMatches(ctx, Array.isArray(key) ? key[0] : key)) {
      socket.close(4401, 'bad node key');
      return;
    }
    rt.attach(socket, req.ip);
  });

  app.get('/api/node-api/blobs/:hash', { config: { access: 'node' }, schema: { params: Type.Object({ hash: Type.String({ pattern: '^[0-9a-f]{64}$' }) }) } }, async (req, reply) => {
    nodeAuth(ctx, req);
    const content = await blobContent(db, req.params.hash);
    if (!content) throw notFound('blob');
    return reply.type('application/octet-stream').send(content);
  });

  async function taskForNode(req: FastifyRequest, taskId: string) {
    const nodeId = nodeAuth(ctx, req);
    const t = await db.selectFrom('tasks').select(['id', 'node_id', 'spider_id']).where('id', '=', taskId).executeTakeFirst();
    if (!t) throw new HttpError(410, 'task gone');
    if (nodeId && t.node_id !== nodeId) throw conflict('task belongs to another node');
    return t;
  }

  app.post('/api/node-api/tasks/:id/logs', { config: { access: 'node' }, schema: { params: IdParams, body: ShipBody } }, async (req) => {
    await taskForNode(req, req.params.id);
    const r = await ingestLogs(db, ctx.store.engine, req.params.id, req.body);
    if (!r) throw new HttpError(410, 'task gone');
    if (r.event) ctx.events.emit('task.log', r.event);
    return ok({ acked: r.acked } satisfies ShipAck);
  });

  app.post('/api/node-api/tasks/:id/items', { config: { access: 'node' }, schema: { params: IdParams, body: ShipBody } }, async (req) => {
    const t = await taskForNode(req, req.params.id);
    const spider = await spiderForTask(db, t.spider_id);
    if (!spider) throw new HttpError(410, 'spider gone');
    const r = await ingestItems(db, ctx.store.engine, req.params.id, req.body, { collection: spider.collection, isDedup: spider.isDedup, field: spider.dedupField, method: spider.dedupMethod });
    if (!r) throw new HttpError(410, 'task gone');
    return ok({ acked: r.acked } satisfies ShipAck);
  });

  // ------------------------------------------------------------------------ nodes API

  const live = (id: string) => (rt.sessions.has(id) ? rt.statusOf(rt.sessions.get(id)) : undefined);

  app.get('/api/nodes', { config: { access: 'user' } }, async () => {
    const rows = await db.selectFrom('nodes').selectAll().orderBy('type').orderBy('create_ts').execute();
    return ok(rows.map((r) => presentNode(r, live(r.id))), rows.length);
  });

  app.get('/api/nodes-join', { config: { access: 'admin' } }, async (req) => {
    const url = masterUrl(ctx, req.protocol, req.headers.host);
    return ok({
      master_url: url,
      key: ctx.config.nodeKey,
      command: joinCommand(url, ctx.config.nodeKey),
      docs_url: `${ctx.config.docsUrl.replace(/\/$/, '')}/node/multi-node.html`,
      offline_seconds: rt.offlineMs / 1000,
    });
  });

  app.get('/api/nodes/:id', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const n = await nodeFor(db, req.user, req.params.id, 'read');
    return ok(presentNode(n, live(n.id)));
  });

  app.post('/api/nodes/:id', { config: { access: 'admin' }, schema: { params: IdParams, body: NodeEditBody } }, async (req) => {
    const n = await nodeFor(db, req.user, req.params.id, 'change');
    const b = req.body;
    await db
      .updateTable('nodes')
      .set({
        ...(b.name !== undefined ? { name: b.name.trim() || n.name } : {}),
        ...(b.description !== undefined ? { description: b.description } : {}),
        ...(b.enabled !== undefined ? { enabled: b.enabled ? 1 : 0 } : {}),
        ...(b.max_runners !== undefined ? { max_runners: b.max_runners } : {}),
        update_ts: Date.now(),
      })
      .where('id', '=', n.id)
      .execute();
    const after = await nodeFor(db, req.user, n.id, 'read');
    await rt.setNodeConfig(n.id, after.enabled === 1, after.max_runners);
    return ok(presentNode((await nodeFor(db, req.user, n.id, 'read'))!, live(n.id)));
  });

  app.delete('/api/nodes/:id', { config: { access: 'admin' }, schema: { params: IdParams } }, async (req) => {
    const n = await nodeFor(db, req.user, req.params.id, 'change');
    if (rt.sessions.has(n.id)) throw conflict('node is online: stop its node service first');
    await db.deleteFrom('nodes').where('id', '=', n.id).execute();
    return ok(null);
  });

  app.get('/api/nodes/:id/tasks', { config: { access: 'user' }, schema: { params: IdParams, querystring: Type.Object({ ...pageFields(100000) }) } }, async (req) => {
    await nodeFor(db, req.user, req.params.id, 'read');
    const { limit, offset } = paging(req.query, 10);
    const base = db.selectFrom('tasks').where('node_id', '=', req.params.id).where(taskReadFilter(req.user));
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('create_ts', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return ok(await presentTasks(db, rows), Number(count.n));
  });

  app.get('/api/nodes/:id/system', { config: { access: 'user' }, schema: { params: IdParams, querystring: Type.Object({ minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440 })) }) } }, async (req) => {
    const n = await nodeFor(db, req.user, req.params.id, 'read');
    const since = Date.now() - (req.query.minutes ?? 60) * 60_000;
    const metrics = await db.selectFrom('node_metrics').select(['ts', 'cpu', 'mem', 'disk', 'running']).where('node_id', '=', n.id).where('ts', '>=', since).orderBy('ts').execute();
    const info = JSON.parse(n.system_info || 'null') ?? {};
    return ok({ ...info, systemInfo: info, metrics: metrics.map((m) => ({ ...m, ts: iso(m.ts) })), current: JSON.parse(n.metrics || 'null') });
  });
};

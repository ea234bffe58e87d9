import { Type } from '@sinclair/typebox';
import {
  NodeDeletedEnvelope,
  NodeEditBody,
  NodeEnvelope,
  NodeJoinEnvelope,
  NodeListEnvelope,
  NodeListQuery,
  NodeSystemEnvelope,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { iso, ok } from '../../http/envelope.ts';
import { conflict } from '../../http/errors.ts';
import { nodeFor } from '../../policies/index.ts';
import { deleteNode, metricsSince, nodeIdNamed, updateNode } from './nodes.store.ts';
import { forgetNode, presentNode } from './nodes.service.ts';
import { nodeListFor } from './node-list.ts';
import { listWriterFor } from './list-stream.ts';
import { joinCommand, masterUrl } from '../node-install/node-install.service.ts';
import { registerNodeKeyRoutes } from './credentials.routes.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });
const SystemQuery = Type.Object({ minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440 })) });

/** The node registry as the console sees it: the list, one node, its edits, removal and metrics history. */
export const nodesFeature: Feature = async (app, ctx) => {
  const { db } = ctx.store;
  const rt = ctx.execution;

  const list = nodeListFor(ctx, rt);
  const writer = listWriterFor(ctx);
  // When the app is ready (the routes' serializer compiler exists from then on), before it answers a request.
  app.addHook('onReady', async () => writer.prepare(app));

  app.get(
    '/api/nodes',
    { config: { access: 'user' }, schema: { querystring: NodeListQuery, response: { 200: NodeListEnvelope } } },
    async (req, reply) => {
      const { rows, total } = await list.query(req.query);
      return writer.send(reply, rows, total);
    },
  );

  app.get(
    '/api/nodes-join',
    { config: { access: 'admin' }, schema: { response: { 200: NodeJoinEnvelope } } },
    async (req) => {
      const url = masterUrl(ctx, req.protocol, req.headers.host);
      return ok({
        master_url: url,
        key: ctx.config.nodeKey,
        command: joinCommand(url, ctx.config.nodeKey),
        docs_url: `${ctx.config.docsUrl.replace(/\/$/, '')}/node/multi-node.html`,
        offline_seconds: rt.offlineMs / 1000,
      });
    },
  );

  app.get(
    '/api/nodes/:id',
    { config: { access: 'user' }, schema: { params: IdParams, response: { 200: NodeEnvelope } } },
    async (req) => {
      const n = await nodeFor(db, req.user, req.params.id, 'read');
      return ok(presentNode(n, rt.liveSession(n.id)));
    },
  );

  app.post(
    '/api/nodes/:id',
    { config: { access: 'admin' }, schema: { params: IdParams, body: NodeEditBody, response: { 200: NodeEnvelope } } },
    async (req) => {
      const n = await nodeFor(db, req.user, req.params.id, 'change');
      const b = req.body;
      const name = b.name !== undefined ? b.name.trim() || n.name : undefined;
      const holder = name !== undefined ? await nodeIdNamed(db, name) : undefined;
      if (holder && holder !== n.id) throw conflict(`another node is named "${name}": node names are unique`);
      await updateNode(db, n.id, { ...b, ...(name !== undefined ? { name } : {}) });
      const after = await nodeFor(db, req.user, n.id, 'read');
      await rt.setNodeConfig(n.id, after.enabled === 1, after.max_runners);
      list.markDirty();
      return ok(presentNode(await nodeFor(db, req.user, n.id, 'read'), rt.liveSession(n.id)));
    },
  );

  app.delete(
    '/api/nodes/:id',
    { config: { access: 'admin' }, schema: { params: IdParams, response: { 200: NodeDeletedEnvelope } } },
    async (req) => {
      const n = await nodeFor(db, req.user, req.params.id, 'change');
      if (rt.liveSession(n.id)) throw conflict('node is online: stop its node service first');
      await deleteNode(db, n.id);
      forgetNode(n.id);
      list.markDirty();
      // Where tasks may run can change with one node fewer (the master's own node may open to normal users).
      await rt.tasksCreated();
      return ok(null);
    },
  );

  registerNodeKeyRoutes(app, ctx);

  app.get(
    '/api/nodes/:id/system',
    {
      config: { access: 'user' },
      schema: { params: IdParams, querystring: SystemQuery, response: { 200: NodeSystemEnvelope } },
    },
    async (req) => {
      const n = await nodeFor(db, req.user, req.params.id, 'read');
      const since = Date.now() - (req.query.minutes ?? 60) * 60_000;
      const stored = await metricsSince(db, n.id, since);
      // The minute in progress is not stored yet: shown from memory where this master hears the node.
      const current = rt.heartbeats.currentMinute(n.id);
      const history = current && !stored.some((m) => Number(m.ts) === current.ts) ? [...stored, current] : stored;
      const info = JSON.parse(n.system_info || 'null') ?? {};
      const live = rt.liveSession(n.id)?.metrics ?? JSON.parse(n.metrics || 'null');
      return ok({
        ...info,
        systemInfo: info,
        metrics: history.map((m) => ({ ts: iso(m.ts), cpu: m.cpu, mem: m.mem, disk: m.disk, running: m.running })),
        current: live,
      });
    },
  );
};

/**
 * What nodes call with their key: the control socket (one per node, carrying the protocol of node-protocol.ts),
 * spider file blobs, and the exactly-once ingest of a task's log lines and result rows (several batches of a task
 * may be in flight; ingest-order.ts puts them in order). The node's own key of the HTTP endpoints is checked by
 * the access hook (access 'node'); the socket checks the key itself to close with a code, and there the shared key
 * is accepted too, for a new node to join (nodes/credentials.ts).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { BinaryResponse, NODE_KEY_HEADER, ShipAckEnvelope, ShipBody, shipItemsBody } from '@crawldeck/shared';
import type { AppContext, TypedApp } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { HttpError, notFound } from '../../http/errors.ts';
import { taskOnNode } from '../../policies/index.ts';
import { nodeCaller } from '../nodes/credentials.ts';
import { bulkValidatorCompiler } from '../../http/bulk-validator.ts';
import { blobContent, spiderForTask } from './spider-source.ts';
import { ingestItems, ingestLogs, readyLogs } from './ingest.store.ts';
import { taskForIngest } from './node-state.store.ts';
import { ingestIntoDataSource } from '../datasources/ingest.service.ts';
import type { TaskRuntime } from './runtime.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });
const HashParams = Type.Object({ hash: Type.String({ pattern: '^[0-9a-f]{64}$' }) });

export function registerIngestRoutes(app: TypedApp, ctx: AppContext, rt: TaskRuntime): void {
  const { db } = ctx.store;
  const order = rt.ingestOrder;

  app.get('/api/nodes/connect', { websocket: true, config: { access: 'node' } }, async (socket, req) => {
    // Messages that arrive while the key is looked up are kept until the session is attached.
    const early: Buffer[] = [];
    const keep = (data: Buffer) => early.push(data);
    socket.on('message', keep);
    const caller = await nodeCaller(db, ctx.config.nodeKey, req.headers[NODE_KEY_HEADER]).catch(() => undefined);
    socket.off('message', keep);
    if (!caller) {
      socket.close(4401, 'bad node key');
      return;
    }
    rt.attach(socket, req.ip, caller);
    for (const data of early) socket.emit('message', data, false);
  });

  app.get(
    '/api/node-api/blobs/:hash',
    { config: { access: 'node' }, schema: { params: HashParams, response: { 200: BinaryResponse } } },
    async (req, reply) => {
      const content = await blobContent(db, req.params.hash);
      if (!content) throw notFound('blob');
      return reply.type('application/octet-stream').send(content);
    },
  );

  async function taskForNode(req: FastifyRequest, taskId: string) {
    const t = taskOnNode(req.nodeId, await taskForIngest(db, taskId));
    if (!t) throw new HttpError(410, 'task gone');
    return t;
  }

  const shipSchema = { params: IdParams, body: ShipBody, response: { 200: ShipAckEnvelope } };
  const maxItem = ctx.config.maxItemBytes;
  const itemsSchema = { ...shipSchema, body: shipItemsBody(maxItem) };
  /**
   * A node sends an item up to the limit alone in its batch, other items in batches of about 512 KiB. Written as a
   * JSON string an item line grows by its escapes: a valid JSON line at most doubles (quotes and backslashes), and
   * a line that is not JSON (skipped, but still counted) may hold control characters of six bytes each.
   */
  const itemsBodyLimit = 6 * maxItem + 1024 * 1024;
  const validatorCompiler = bulkValidatorCompiler;
  /** Counts a task's batches at the master from their first byte to their answer (ingest-order.ts). */
  const counted = new WeakSet<FastifyRequest>();
  const streamOf = (req: FastifyRequest) =>
    `${(req.params as { id?: string }).id}:${req.url.endsWith('/logs') ? 'logs' : 'items'}`;
  const answered = async (req: FastifyRequest) => {
    if (counted.delete(req)) order.answered(streamOf(req));
  };
  const counting = {
    onRequest: async (req: FastifyRequest) => {
      counted.add(req);
      order.arrived(streamOf(req));
    },
    onResponse: answered,
    onRequestAbort: answered,
  };

  app.post(
    '/api/node-api/tasks/:id/logs',
    { config: { access: 'node' }, schema: shipSchema, validatorCompiler, ...counting },
    async (req) => {
      await taskForNode(req, req.params.id);
      const taskId = req.params.id;
      readyLogs(ctx.store, taskId, req.body);
      const r = await order.inOrder(`${taskId}:logs`, req.body.from, () => ingestLogs(ctx.store, taskId, req.body));
      if (!r) throw new HttpError(410, 'task gone');
      if (r.event) ctx.events.emit('task.log', r.event);
      return ok({ acked: r.acked });
    },
  );

  app.post(
    '/api/node-api/tasks/:id/items',
    {
      config: { access: 'node' },
      schema: itemsSchema,
      validatorCompiler,
      bodyLimit: itemsBodyLimit,
      ...counting,
    },
    async (req) => {
      const t = await taskForNode(req, req.params.id);
      const spider = await spiderForTask(db, t.spider_id);
      if (!spider) throw new HttpError(410, 'spider gone');
      const dedup = {
        collection: spider.collection,
        isDedup: spider.isDedup,
        field: spider.dedupField,
        method: spider.dedupMethod,
      };
      const taskId = req.params.id;
      const r = await order.inOrder(
        `${taskId}:items`,
        req.body.from,
        async () =>
          (await ingestIntoDataSource(ctx, taskId, req.body, dedup)) ??
          (await ingestItems(ctx.store, taskId, req.body, dedup)),
      );
      if (!r) throw new HttpError(410, 'task gone');
      if (r.stored) ctx.events.emit('task.items', { taskId: req.params.id, stored: r.stored });
      return ok({ acked: r.acked });
    },
  );
}

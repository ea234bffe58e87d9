import { Type } from '@sinclair/typebox';
import {
  WEBHOOK_ERRORS,
  WEBHOOK_EVENTS,
  WebhookBody,
  WebhookUpdateBody,
  newId,
  renderWebhookTemplate,
  validateWebhookUrl,
  OkNull,
  WebhookAttemptResult,
  WebhookDeliveryInfo,
  WebhookInfo,
  WebhookMeta,
  okResponse,
  pageFields,
  type WebhookEvent,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { parseIds } from '../schedules/schedules.store.ts';
import { TASK_EVENT_OF, WebhookDispatcher } from './webhooks.service.ts';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listDeliveriesPage,
  listWebhooks,
  updateWebhook,
  type DeliveryRow,
  type WebhookRow,
} from './webhooks.store.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });
const admin = { access: 'admin' as const };

function present(r: WebhookRow): WebhookInfo {
  return {
    _id: r.id,
    name: r.name,
    url: r.url,
    events: parseIds(r.events) as WebhookEvent[],
    spider_ids: parseIds(r.spider_ids),
    has_secret: !!r.secret,
    template: r.template,
    enabled: !!r.enabled,
    last_status: r.last_status,
    last_delivery_ts: iso(r.last_delivery_ts),
    create_ts: iso(r.create_ts),
    update_ts: iso(r.update_ts),
  };
}

function presentDelivery(r: DeliveryRow): WebhookDeliveryInfo {
  return {
    _id: r.id,
    webhook_id: r.webhook_id,
    delivery_id: r.delivery_id,
    event: r.event as WebhookDeliveryInfo['event'],
    attempt: r.attempt,
    ok: !!r.ok,
    http_status: r.http_status,
    error: r.error,
    duration_ms: r.duration_ms,
    request_body: r.request_body,
    response_body: r.response_body,
    create_ts: iso(r.create_ts),
  };
}

/** Sample variables: used to check a template when saved and for the "send test" delivery. */
export function sampleVars(event: WebhookEvent | 'test' = 'test'): Record<string, unknown> {
  const now = new Date();
  return {
    event,
    ts: now.toISOString(),
    task: {
      id: '000000000000000000000001',
      status: 'finished',
      error: '',
      spider_id: '000000000000000000000002',
      spider_name: 'example "spider"',
      node_id: '000000000000000000000003',
      node_name: 'master',
      schedule_id: null,
      parent_id: null,
      param: '',
      result_count: 42,
      create_ts: new Date(now.getTime() - 60_000).toISOString(),
      start_ts: new Date(now.getTime() - 55_000).toISOString(),
      finish_ts: now.toISOString(),
      runtime_duration: 55_000,
    },
    node: { id: '000000000000000000000003', name: 'master', status: 'online' },
  };
}

function checkBody(b: { url?: string; events?: string[]; template?: string }, creating: boolean): void {
  if (creating || b.url !== undefined) {
    const err = validateWebhookUrl(b.url);
    if (err) throw badRequest(err);
  }
  if ((creating || b.events !== undefined) && !b.events?.length) throw badRequest(WEBHOOK_ERRORS.eventsRequired);
  if (b.template?.trim()) {
    try {
      renderWebhookTemplate(b.template, sampleVars());
    } catch (err) {
      throw badRequest(`The template must be JSON (with {{placeholders}}): ${(err as Error).message}`);
    }
  }
}

/** Settings → Notifications (admin only): webhooks, their delivery log and a test delivery. */
export const webhooksFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const dispatcher = new WebhookDispatcher(ctx, ctx.config);
  ctx.onClose(() => dispatcher.close());

  dispatcher.start();

  ctx.events.on('task.status', (ev) => {
    const event = TASK_EVENT_OF[ev.status];
    if (event && !ev.repeat) dispatcher.emit(event, () => dispatcher.taskVars(event, ev.taskId));
  });
  // A finished task with error lines or without its usual results: the task's placeholders plus `suspicious.*`.
  ctx.events.on('task.suspicious', (ev) =>
    dispatcher.emit('task_suspicious', async () => {
      const built = await dispatcher.taskVars('task_suspicious', ev.taskId);
      const suspicious = {
        reasons: ev.reasons.join(','),
        error_lines: ev.errorLines,
        results: ev.results,
        usual_results: ev.usualResults,
      };
      return built && { ...built, vars: { ...built.vars, suspicious } };
    }),
  );
  ctx.events.on('node.offline', ({ nodeId }) =>
    dispatcher.emit('node_offline', async () => ({ vars: await dispatcher.nodeVars(nodeId) })),
  );

  const getRow = async (id: string) => {
    const row = await findWebhook(db, id);
    if (!row) throw notFound('webhook');
    return row;
  };

  app.get('/api/webhooks', { config: admin, schema: { response: okResponse(Type.Array(WebhookInfo)) } }, async () => {
    const rows = await listWebhooks(db);
    return ok(rows.map(present), rows.length);
  });

  app.get('/api/webhooks/meta', { config: admin, schema: { response: okResponse(WebhookMeta) } }, async () =>
    ok({ events: [...WEBHOOK_EVENTS], placeholders: Object.keys(flatten(sampleVars())) }),
  );

  app.get(
    '/api/webhooks/:id',
    { config: admin, schema: { params: IdParams, response: okResponse(WebhookInfo) } },
    async (req) => ok(present(await getRow(req.params.id))),
  );

  app.put(
    '/api/webhooks',
    { config: admin, schema: { body: WebhookBody, response: okResponse(WebhookInfo) } },
    async (req) => {
      const b = req.body;
      checkBody(b, true);
      const now = Date.now();
      const id = newId(now);
      await insertWebhook(db, {
        id,
        name: b.name?.trim() || new URL(b.url.trim()).host,
        url: b.url.trim(),
        events: JSON.stringify([...new Set(b.events)]),
        spider_ids: JSON.stringify([...new Set(b.spider_ids ?? [])]),
        secret: b.secret ?? '',
        template: b.template ?? '',
        enabled: b.enabled === false ? 0 : 1,
        last_status: null,
        last_delivery_ts: null,
        owner_id: req.user.id,
        create_ts: now,
        update_ts: now,
      });
      return ok(present(await getRow(id)));
    },
  );

  app.post(
    '/api/webhooks/:id',
    { config: admin, schema: { params: IdParams, body: WebhookUpdateBody, response: okResponse(WebhookInfo) } },
    async (req) => {
      await getRow(req.params.id);
      const b = req.body;
      checkBody(b, false);
      const patch: Partial<WebhookRow> = { update_ts: Date.now() };
      if (b.name !== undefined) patch.name = b.name.trim();
      if (b.url !== undefined) patch.url = b.url.trim();
      if (b.events !== undefined) patch.events = JSON.stringify([...new Set(b.events)]);
      if (b.spider_ids !== undefined) patch.spider_ids = JSON.stringify([...new Set(b.spider_ids)]);
      if (b.secret !== undefined) patch.secret = b.secret; // '' removes it; omitted keeps it
      if (b.template !== undefined) patch.template = b.template;
      if (b.enabled !== undefined) patch.enabled = b.enabled ? 1 : 0;
      await updateWebhook(db, req.params.id, patch);
      return ok(present(await getRow(req.params.id)));
    },
  );

  app.delete(
    '/api/webhooks/:id',
    { config: admin, schema: { params: IdParams, response: { 200: OkNull } } },
    async (req) => {
      await getRow(req.params.id);
      await deleteWebhook(db, req.params.id);
      return ok(null);
    },
  );

  /** Sends one signed test delivery now (one attempt, no retries) and answers with its outcome. */
  app.post(
    '/api/webhooks/:id/test',
    { config: admin, schema: { params: IdParams, response: okResponse(WebhookAttemptResult) } },
    async (req) => {
      const row = await getRow(req.params.id);
      let body: string;
      try {
        body = dispatcher.render(row, sampleVars('test'));
      } catch (err) {
        throw badRequest(`template error: ${(err as Error).message}`);
      }
      const result = await dispatcher.attemptOnce(row, newId(), 'test', body, 1);
      return ok(result);
    },
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      config: admin,
      schema: {
        params: IdParams,
        querystring: Type.Object({
          ...pageFields(1000),
        }),
        response: okResponse(Type.Array(WebhookDeliveryInfo)),
      },
    },
    async (req) => {
      await getRow(req.params.id);
      const { rows, total } = await listDeliveriesPage(db, req.params.id, paging(req.query, 20));
      return ok(rows.map(presentDelivery), total);
    },
  );
};

function flatten(o: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v && typeof v === 'object' && !Array.isArray(v))
      Object.assign(out, flatten(v as Record<string, unknown>, `${prefix}${k}.`));
    else out[prefix + k] = v;
  }
  return out;
}

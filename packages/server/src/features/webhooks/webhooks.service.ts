/**
 * Notification webhooks: delivery from the master, asynchronously, off the task path.
 *
 * - Events: task_finished, task_error (status error or abnormal), task_cancelled, node_offline.
 * - Body: the default JSON payload, or the webhook's template with `{{placeholders}}` (values JSON-escaped).
 * - Secret: `X-Crawldeck-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>`.
 * - Each attempt has a timeout (5 s) and is logged in webhook_deliveries; a failure (network, timeout, non-2xx)
 *   is retried up to 5 times with exponential backoff (1 s, 2 s, 4 s, 8 s, 16 s by default).
 * - Deliveries wait for their next attempt in the store (webhooks.outbox.ts): a restart resumes them.
 */
import { createHmac } from 'node:crypto';
import {
  EMPTY_ID,
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  VERSION,
  newId,
  renderWebhookTemplate,
  type WebhookEvent,
} from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { MasterConfig } from '../../config.ts';
import { parseIds } from '../schedules/schedules.store.ts';
import { outboundPolicy } from '../../outbound/policy.ts';
import { fetchLimited, guardedAgent } from '../../outbound/http.ts';
import { Outbox, type OutboxRow } from '../../outbox/outbox.ts';
import {
  findNodeForEvent,
  findTaskForEvent,
  findWebhook,
  listEnabledWebhooks,
  logDeliveryAttempt,
  type WebhookRow,
} from './webhooks.store.ts';

/** The webhook timings of the master's configuration. */
export type WebhookTimings = Pick<MasterConfig, 'webhookTimeoutMs' | 'webhookBackoffMs'>;
const BODY_LOG_LIMIT = 4000;

export function sign(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

export const TASK_EVENT_OF: Record<string, WebhookEvent | undefined> = {
  finished: 'task_finished',
  error: 'task_error',
  abnormal: 'task_error',
  cancelled: 'task_cancelled',
};

export interface AttemptResult {
  ok: boolean;
  http_status: number | null;
  error: string;
  duration_ms: number;
}

export class WebhookDispatcher {
  private controllers = new Set<AbortController>();
  private pending = new Set<Promise<unknown>>();
  private closed = false;
  private readonly outbox: Outbox;

  constructor(
    private ctx: AppContext,
    private cfg: WebhookTimings,
  ) {
    this.outbox = new Outbox(ctx, 'webhook', cfg.webhookBackoffMs, cfg.webhookTimeoutMs + 30_000, (row) =>
      this.attemptStored(row),
    );
  }

  /** Takes up the deliveries waiting in the store (e.g. retries from before a restart). */
  start(): void {
    this.outbox.kick();
  }

  private get db() {
    return this.ctx.store.db;
  }

  /** Template variables of a task event. */
  async taskVars(
    event: WebhookEvent,
    taskId: string,
  ): Promise<{ vars: Record<string, unknown>; spiderId: string } | undefined> {
    const t = await findTaskForEvent(this.db, taskId);
    if (!t) return undefined;
    const iso = (v: number | null) => (v == null ? null : new Date(Number(v)).toISOString());
    const task = {
      id: t.id,
      status: t.status,
      error: t.error,
      spider_id: t.spider_id,
      spider_name: t.spider_name ?? '',
      node_id: t.node_id === EMPTY_ID ? '' : t.node_id,
      node_name: t.node_name ?? '',
      schedule_id: t.schedule_id,
      parent_id: t.parent_id,
      param: t.param,
      result_count: Number(t.result_count ?? 0),
      create_ts: iso(t.create_ts),
      start_ts: iso(t.start_ts),
      finish_ts: iso(t.finish_ts),
      runtime_duration: t.start_ts != null && t.finish_ts != null ? Number(t.finish_ts) - Number(t.start_ts) : null,
    };
    const node = t.node_name != null ? { id: t.node_id, name: t.node_name, status: t.node_status } : null;
    return { vars: { event, ts: new Date().toISOString(), task, node }, spiderId: t.spider_id };
  }

  async nodeVars(nodeId: string): Promise<Record<string, unknown>> {
    const n = await findNodeForEvent(this.db, nodeId);
    return {
      event: 'node_offline',
      ts: new Date().toISOString(),
      node: n ? { id: n.id, name: n.name, status: n.status, ip: n.ip } : { id: nodeId, name: '', status: 'offline' },
    };
  }

  /** Queues deliveries of an event to every enabled webhook that wants it. Never throws, never waits for them. */
  emit(
    event: WebhookEvent,
    build: () => Promise<{ vars: Record<string, unknown>; spiderId?: string } | undefined>,
  ): void {
    if (this.closed) return;
    const job = (async () => {
      const hooks = await listEnabledWebhooks(this.db);
      const wanted = hooks.filter((h) => parseIds(h.events).includes(event));
      if (!wanted.length) return;
      const built = await build();
      if (!built) return;
      for (const h of wanted) {
        const spiders = parseIds(h.spider_ids);
        if (spiders.length && (!built.spiderId || !spiders.includes(built.spiderId))) continue;
        await this.deliver(h, event, built.vars);
      }
    })().catch((err) => this.ctx.log.error({ err, event }, 'webhook dispatch failed'));
    this.track(job);
  }

  private track(p: Promise<unknown>): void {
    const t = p.finally(() => this.pending.delete(t));
    this.pending.add(t);
  }

  /** Renders the body of a webhook for the given variables (template or default payload). */
  render(hook: Pick<WebhookRow, 'template'>, vars: Record<string, unknown>): string {
    return hook.template.trim() ? renderWebhookTemplate(hook.template, vars) : JSON.stringify(vars);
  }

  /** Stores a delivery in the outbox; its attempts and retries run in the background. */
  async deliver(hook: WebhookRow, event: WebhookEvent, vars: Record<string, unknown>): Promise<string> {
    const deliveryId = newId();
    let body: string;
    try {
      body = this.render(hook, vars);
    } catch (err) {
      await this.logAttempt(
        hook.id,
        deliveryId,
        event,
        1,
        '',
        { ok: false, http_status: null, error: `template error: ${(err as Error).message}`, duration_ms: 0 },
        '',
      );
      return deliveryId;
    }
    await this.outbox.add([{ id: deliveryId, target_id: hook.id, event, body }]);
    return deliveryId;
  }

  /** One attempt of a stored delivery; one stopped by a shutdown is not counted. */
  private async attemptStored(row: OutboxRow): Promise<{ ok: boolean; aborted: boolean; gone?: boolean }> {
    if (this.closed) return { ok: false, aborted: true };
    const hook = await findWebhook(this.db, row.target_id);
    if (!hook) return { ok: false, aborted: false, gone: true };
    const r = await this.attemptOnce(hook, row.id, row.event as WebhookEvent, row.body, row.attempt);
    return { ok: r.ok, aborted: !r.ok && this.closed };
  }

  /** One POST with timeout, logged. */
  async attemptOnce(
    hook: WebhookRow,
    deliveryId: string,
    event: WebhookEvent | 'test',
    body: string,
    n: number,
  ): Promise<AttemptResult> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `Crawldeck-Webhook/${VERSION}`,
      [WEBHOOK_EVENT_HEADER]: event,
      [WEBHOOK_DELIVERY_HEADER]: deliveryId,
    };
    if (hook.secret) headers[WEBHOOK_SIGNATURE_HEADER] = sign(hook.secret, body);
    const controller = new AbortController();
    this.controllers.add(controller);
    const timer = setTimeout(
      () => controller.abort(new Error(`timed out after ${this.cfg.webhookTimeoutMs} ms`)),
      this.cfg.webhookTimeoutMs,
    );
    const started = Date.now();
    let result: AttemptResult;
    let responseBody = '';
    // the master connects only to addresses the outbound policy allows (checked on the resolved address)
    const agent = guardedAgent(await outboundPolicy(this.ctx.store.db, this.ctx.config.outboundAllow));
    try {
      const res = await fetchLimited(hook.url, {
        dispatcher: agent,
        maxBytes: BODY_LOG_LIMIT,
        overflow: 'truncate',
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
        redirect: 'manual',
      });
      responseBody = res.body.toString('utf8');
      result = {
        ok: res.status >= 200 && res.status < 300,
        http_status: res.status,
        error: res.status >= 200 && res.status < 300 ? '' : `HTTP ${res.status}`,
        duration_ms: Date.now() - started,
      };
    } catch (err) {
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      const cause = (reason as { cause?: { message?: string } })?.cause?.message;
      result = {
        ok: false,
        http_status: null,
        error: String((reason as Error)?.message ?? reason) + (cause ? `: ${cause}` : ''),
        duration_ms: Date.now() - started,
      };
    } finally {
      clearTimeout(timer);
      this.controllers.delete(controller);
      void agent.destroy().catch(() => undefined);
    }
    await this.logAttempt(hook.id, deliveryId, event, n, body, result, responseBody).catch((err) =>
      this.ctx.log.warn({ err }, 'webhook delivery log failed'),
    );
    return result;
  }

  private async logAttempt(
    webhookId: string,
    deliveryId: string,
    event: string,
    attempt: number,
    body: string,
    r: AttemptResult,
    responseBody: string,
  ): Promise<void> {
    if (this.closed) return;
    const now = Date.now();
    await logDeliveryAttempt(this.db, {
      id: newId(now),
      webhook_id: webhookId,
      delivery_id: deliveryId,
      event,
      attempt,
      ok: r.ok ? 1 : 0,
      http_status: r.http_status,
      error: r.error.slice(0, 1000),
      duration_ms: r.duration_ms,
      request_body: body.slice(0, BODY_LOG_LIMIT),
      response_body: responseBody,
      create_ts: now,
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const outboxClosed = this.outbox.close();
    for (const c of this.controllers) c.abort(new Error('master shutting down'));
    await Promise.allSettled([...this.pending]);
    await outboxClosed;
  }
}

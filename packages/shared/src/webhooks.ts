import { Type, type Static } from '@sinclair/typebox';
import { Id, Str } from './bounds.ts';
import { IsoTime, Nullable } from './responses.ts';

/** Notification webhooks: Settings → Notifications, the events they deliver, their bodies and signatures. */
export const WEBHOOK_EVENTS = [
  'task_finished',
  'task_error',
  'task_cancelled',
  'node_offline',
  'task_suspicious',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_ERRORS = {
  urlRequired: 'A webhook URL is required',
  urlInvalid: 'The webhook URL must be an http:// or https:// URL',
  eventsRequired: 'Choose at least one event',
} as const;

/** Header carrying `sha256=<hex HMAC-SHA256 of the raw body>` when the webhook has a secret. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Crawldeck-Signature';
export const WEBHOOK_EVENT_HEADER = 'X-Crawldeck-Event';
export const WEBHOOK_DELIVERY_HEADER = 'X-Crawldeck-Delivery';
/** Retries after the first attempt (each with exponential backoff). */
export const WEBHOOK_MAX_RETRIES = 5;
export const WEBHOOK_TIMEOUT_MS = 5000;

/** null when valid, else the message to show (shared by server and console). */
export function validateWebhookUrl(url: unknown): string | null {
  if (typeof url !== 'string' || !url.trim()) return WEBHOOK_ERRORS.urlRequired;
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return WEBHOOK_ERRORS.urlInvalid;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) return WEBHOOK_ERRORS.urlInvalid;
  return null;
}

/** The placeholders a template may use, e.g. `{{task.status}}` (documented in docs/schedules.md). */
export const WEBHOOK_PLACEHOLDERS = [
  'event',
  'ts',
  'task.id',
  'task.status',
  'task.error',
  'task.spider_id',
  'task.spider_name',
  'task.node_id',
  'task.node_name',
  'task.schedule_id',
  'task.param',
  'task.result_count',
  'task.create_ts',
  'task.finish_ts',
  'task.runtime_duration',
  'node.id',
  'node.name',
  'node.status',
] as const;

/**
 * Fills `{{path}}` placeholders of a JSON template. Inside a JSON string the value is inserted JSON-escaped
 * (no quotes added); outside a string it is inserted as a JSON value (`null` when missing). The result must
 * parse as JSON, or an Error is thrown.
 */
export function renderWebhookTemplate(template: string, vars: Record<string, unknown>): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < template.length; i++) {
    const ch = template[i];
    if (ch === '{' && template[i + 1] === '{') {
      const end = template.indexOf('}}', i + 2);
      if (end > 0) {
        const key = template.slice(i + 2, end).trim();
        const value = lookup(vars, key);
        if (inString)
          out += JSON.stringify(
            value == null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value),
          ).slice(1, -1);
        else out += JSON.stringify(value ?? null);
        i = end + 1;
        continue;
      }
    }
    if (inString && ch === '\\') {
      out += ch + (template[i + 1] ?? '');
      i++;
      continue;
    }
    if (ch === '"') inString = !inString;
    out += ch;
  }
  JSON.parse(out);
  return out;
}

function lookup(vars: Record<string, unknown>, key: string): unknown {
  let cur: unknown = vars;
  for (const part of key.split('.')) {
    if (cur == null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export const WebhookBody = Type.Object({
  name: Type.Optional(Str(200)),
  url: Str(2000),
  events: Type.Array(Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e))), { maxItems: WEBHOOK_EVENTS.length }),
  /** Only these spiders' task events; empty or missing = every spider (global). */
  spider_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  /** Write-only. On update: omitted keeps the stored secret, '' removes it. */
  secret: Type.Optional(Str(500)),
  /** JSON with `{{placeholders}}`; empty = the default payload. */
  template: Type.Optional(Str(20000)),
  enabled: Type.Optional(Type.Boolean()),
});
export type WebhookBody = Static<typeof WebhookBody>;
export const WebhookUpdateBody = Type.Partial(WebhookBody);
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

const EventSchema = Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)));

export const WebhookInfo = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  events: Type.Array(EventSchema),
  spider_ids: Type.Array(Type.String()),
  /** Whether a secret is set; the secret itself is never returned. */
  has_secret: Type.Boolean(),
  template: Type.String(),
  enabled: Type.Boolean(),
  last_status: Nullable(Type.Union([Type.Literal('success'), Type.Literal('failed')])),
  last_delivery_ts: IsoTime,
  create_ts: IsoTime,
  update_ts: IsoTime,
});
export type WebhookInfo = Static<typeof WebhookInfo>;

export const WebhookDeliveryInfo = Type.Object({
  _id: Type.String(),
  webhook_id: Type.String(),
  /** Groups the attempts of one delivery. */
  delivery_id: Type.String(),
  event: Type.Union([EventSchema, Type.Literal('test')]),
  attempt: Type.Number(),
  ok: Type.Boolean(),
  http_status: Nullable(Type.Number()),
  error: Type.String(),
  duration_ms: Type.Number(),
  request_body: Type.String(),
  response_body: Type.String(),
  create_ts: IsoTime,
});
export type WebhookDeliveryInfo = Static<typeof WebhookDeliveryInfo>;

/** GET /webhooks/meta: the events a webhook may subscribe to and the placeholders its template may use. */
export const WebhookMeta = Type.Object({ events: Type.Array(Type.String()), placeholders: Type.Array(Type.String()) });
export type WebhookMeta = Static<typeof WebhookMeta>;

/** POST /webhooks/{id}/test: the outcome of the one attempt. */
export const WebhookAttemptResult = Type.Object({
  ok: Type.Boolean(),
  http_status: Nullable(Type.Number()),
  error: Type.String(),
  duration_ms: Type.Number(),
});
export type WebhookAttemptResult = Static<typeof WebhookAttemptResult>;

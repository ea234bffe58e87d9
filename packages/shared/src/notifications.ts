import { Type, type Static } from '@sinclair/typebox';
import { Id, Int, Str } from './bounds.ts';
import { IsoTime, Nullable } from './responses.ts';

/**
 * Notifications: channels an administrator sets up (e-mail, chat apps, a generic webhook), rules that say which
 * condition of which projects, spiders or tags is sent to which channels, and the history of what was sent.
 */

export const CHANNEL_KINDS = [
  'email',
  'slack',
  'discord',
  'dingtalk',
  'wecom',
  'feishu',
  'telegram',
  'webhook',
] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export const NOTIFY_LANGS = ['zh', 'en'] as const;
export type NotifyLang = (typeof NOTIFY_LANGS)[number];

/** The fields a channel shows back (config) and the write-only ones (secrets), per kind, with the required ones. */
export const CHANNEL_FIELDS: Record<ChannelKind, { config: string[]; secrets: string[]; required: string[] }> = {
  email: {
    config: ['host', 'port', 'security', 'skip_verify', 'username', 'from', 'to'],
    secrets: ['password'],
    required: ['host', 'port', 'security', 'from', 'to'],
  },
  slack: { config: [], secrets: ['url'], required: ['url'] },
  discord: { config: [], secrets: ['url'], required: ['url'] },
  dingtalk: { config: [], secrets: ['url', 'secret'], required: ['url'] },
  wecom: { config: [], secrets: ['url'], required: ['url'] },
  feishu: { config: [], secrets: ['url', 'secret'], required: ['url'] },
  telegram: { config: ['chat_id', 'api_base'], secrets: ['token'], required: ['chat_id', 'token'] },
  webhook: { config: ['url'], secrets: ['secret'], required: ['url'] },
};

/** Where Telegram's Bot API answers when a channel names no other base (a self-hosted Bot API server). */
export const TELEGRAM_API_BASE = 'https://api.telegram.org';

export const ChannelConfig = Type.Object(
  {
    host: Type.Optional(Str(255)),
    port: Type.Optional(Int(1, 65535)),
    /** `starttls`: plain connection upgraded (port 587); `tls`: TLS from the start (port 465); `none`: plain. */
    security: Type.Optional(Type.Union([Type.Literal('starttls'), Type.Literal('tls'), Type.Literal('none')])),
    /** Accept a certificate the master cannot verify (a self-signed one of an in-house mail server). */
    skip_verify: Type.Optional(Type.Boolean()),
    username: Type.Optional(Str(255)),
    from: Type.Optional(Str(320)),
    to: Type.Optional(Type.Array(Str(320), { maxItems: 50 })),
    chat_id: Type.Optional(Str(100)),
    api_base: Type.Optional(Str(2000)),
    url: Type.Optional(Str(2000)),
  },
  { additionalProperties: false },
);
export type ChannelConfig = Static<typeof ChannelConfig>;

/** Write-only: never answered; on update an omitted field keeps the stored value and '' removes it. */
export const ChannelSecrets = Type.Object(
  {
    password: Type.Optional(Str(500)),
    url: Type.Optional(Str(2000)),
    secret: Type.Optional(Str(500)),
    token: Type.Optional(Str(500)),
  },
  { additionalProperties: false },
);
export type ChannelSecrets = Static<typeof ChannelSecrets>;

const KindSchema = Type.Union(CHANNEL_KINDS.map((k) => Type.Literal(k)));
const LangSchema = Type.Union(NOTIFY_LANGS.map((k) => Type.Literal(k)));

export const ChannelBody = Type.Object({
  name: Str(200, { minLength: 1 }),
  kind: KindSchema,
  lang: LangSchema,
  enabled: Type.Optional(Type.Boolean()),
  config: Type.Optional(ChannelConfig),
  secrets: Type.Optional(ChannelSecrets),
});
export type ChannelBody = Static<typeof ChannelBody>;
/** An update replaces name, language, enabled and config when given; the kind of a channel never changes. */
export const ChannelUpdateBody = Type.Partial(Type.Omit(ChannelBody, ['kind']));
export type ChannelUpdateBody = Static<typeof ChannelUpdateBody>;

export const ChannelInfo = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  kind: KindSchema,
  lang: LangSchema,
  enabled: Type.Boolean(),
  config: ChannelConfig,
  /** The names of the write-only fields that are set. */
  secrets_set: Type.Array(Type.String()),
  create_ts: IsoTime,
  update_ts: IsoTime,
});
export type ChannelInfo = Static<typeof ChannelInfo>;

/** The outcome of one attempt: the endpoint's answer as it came (HTTP status and body, or the SMTP reply). */
export const ChannelAttemptResult = Type.Object({
  ok: Type.Boolean(),
  status: Nullable(Type.Number()),
  answer: Type.String(),
  error: Type.String(),
  duration_ms: Type.Number(),
});
export type ChannelAttemptResult = Static<typeof ChannelAttemptResult>;

const EMAIL_RE = /^[^\s@<>]+@[^\s@<>]+$/;

function httpUrlProblem(field: string, v: unknown): string | null {
  if (typeof v !== 'string') return null;
  try {
    const u = new URL(v);
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname) return null;
  } catch {
    /* the message below */
  }
  return `${field} must be an http:// or https:// URL`;
}

/**
 * What is wrong with a channel of this kind holding these fields (secrets: the stored ones merged with the given
 * ones), or null. Fields of another kind are refused rather than kept unused.
 */
export function channelProblem(kind: ChannelKind, config: ChannelConfig, secrets: ChannelSecrets): string | null {
  const fields = CHANNEL_FIELDS[kind];
  for (const k of Object.keys(config)) if (!fields.config.includes(k)) return `a ${kind} channel has no setting "${k}"`;
  for (const [k, v] of Object.entries(secrets))
    if (v && !fields.secrets.includes(k)) return `a ${kind} channel has no secret "${k}"`;
  const all: Record<string, unknown> = { ...config, ...secrets };
  for (const k of fields.required) {
    const v = all[k];
    if (v === undefined || v === '' || (Array.isArray(v) && !v.length)) return `${k} is required for a ${kind} channel`;
  }
  const url = kind === 'webhook' ? config.url : secrets.url;
  const urlProblem = httpUrlProblem('url', url) ?? httpUrlProblem('api_base', config.api_base);
  if (urlProblem) return urlProblem;
  if (kind === 'email') {
    for (const a of [config.from ?? '', ...(config.to ?? [])])
      if (!EMAIL_RE.test(a.replace(/^.*<(.+)>\s*$/, '$1'))) return `"${a}" is not an e-mail address`;
    if (secrets.password && !config.username) return 'a password needs a username';
  }
  return null;
}

// ---- rules ----

export const RULE_EVENTS = [
  'task_failed',
  'task_abnormal',
  'task_timed_out',
  'task_finished_with_errors',
  'error_lines',
  'results_below',
  'runtime_above',
  'results_db_stalled',
  'schedule_skipped',
  'node_offline',
  'node_cpu_above',
  'node_mem_above',
  'node_disk_above',
] as const;
export type RuleEvent = (typeof RULE_EVENTS)[number];
/**
 * Node resource events: a node's CPU, memory or disk usage (percent; disk: the file system of its data dir) stayed
 * above the rule's threshold for the rule's `for_seconds`.
 */
export const NODE_RESOURCE_EVENTS = ['node_cpu_above', 'node_mem_above', 'node_disk_above'] as const;
export type NodeResourceEvent = (typeof NODE_RESOURCE_EVENTS)[number];
export const isNodeResourceEvent = (e: string): e is NodeResourceEvent =>
  (NODE_RESOURCE_EVENTS as readonly string[]).includes(e);
/** The events of rules about nodes rather than spiders: they cover every node. */
export const NODE_EVENTS: readonly RuleEvent[] = ['node_offline', ...NODE_RESOURCE_EVENTS];
/**
 * Events whose rule needs a threshold: error lines in one run (≥ N), results (below X % of the usual), run time
 * (above Y times the usual), a node's usage (above X %).
 */
export const THRESHOLD_EVENTS: readonly RuleEvent[] = [
  'error_lines',
  'results_below',
  'runtime_above',
  ...NODE_RESOURCE_EVENTS,
];

const RuleEventSchema = Type.Union(RULE_EVENTS.map((e) => Type.Literal(e)));
const HHMM = Type.String({ pattern: '^$|^([01][0-9]|2[0-3]):[0-5][0-9]$', maxLength: 5 });

export const RuleBody = Type.Object({
  name: Str(200, { minLength: 1 }),
  event: RuleEventSchema,
  /**
   * error_lines: lines ≥ this in one run; results_below: results below this % of the spider's usual; runtime_above:
   * run time above this many times the spider's usual.
   */
  threshold: Type.Optional(Nullable(Type.Number({ minimum: 1, maximum: 1_000_000 }))),
  /** error_lines only: cancel the task when the rule fires. */
  stop_task: Type.Optional(Type.Boolean()),
  /** The spiders a task rule covers: in one of these projects, these spiders, or projects with one of these tags. */
  project_ids: Type.Optional(Type.Array(Id, { maxItems: 500 })),
  spider_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  tags: Type.Optional(Type.Array(Str(100, { minLength: 1 }), { maxItems: 100 })),
  channel_ids: Type.Array(Id, { minItems: 1, maxItems: 50 }),
  /** 'HH:MM' in the master's time zone; between them nothing is sent (the alert is kept as quiet). */
  quiet_start: Type.Optional(HHMM),
  quiet_end: Type.Optional(HHMM),
  /** The same rule and subject (spider or node) sends once within this many minutes; 0 = every time. */
  dedupe_minutes: Type.Optional(Int(0, 10080)),
  /** Node resource rules: how many seconds the usage stays above the threshold before the rule fires. */
  for_seconds: Type.Optional(Int(0, 604_800)),
  enabled: Type.Optional(Type.Boolean()),
});
export type RuleBody = Static<typeof RuleBody>;
export const RuleUpdateBody = Type.Partial(RuleBody);
export type RuleUpdateBody = Static<typeof RuleUpdateBody>;

export const RuleInfo = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  event: RuleEventSchema,
  threshold: Nullable(Type.Number()),
  stop_task: Type.Boolean(),
  project_ids: Type.Array(Type.String()),
  spider_ids: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  channel_ids: Type.Array(Type.String()),
  quiet_start: Type.String(),
  quiet_end: Type.String(),
  dedupe_minutes: Type.Number(),
  for_seconds: Type.Number(),
  enabled: Type.Boolean(),
  create_ts: IsoTime,
  update_ts: IsoTime,
});
export type RuleInfo = Static<typeof RuleInfo>;

/** What is wrong with a rule (after an update is applied), or null. */
export function ruleProblem(r: {
  event: RuleEvent;
  threshold: number | null;
  stop_task: boolean;
  project_ids: string[];
  spider_ids: string[];
  tags: string[];
  quiet_start: string;
  quiet_end: string;
  for_seconds: number;
}): string | null {
  const needs = THRESHOLD_EVENTS.includes(r.event);
  if (needs && r.threshold == null) return `a ${r.event} rule needs a threshold`;
  if (!needs && r.threshold != null) return `a ${r.event} rule takes no threshold`;
  if (r.event === 'error_lines' && r.threshold != null && !Number.isInteger(r.threshold))
    return 'the error-line threshold is a whole number';
  if (r.event === 'results_below' && r.threshold != null && r.threshold > 100)
    return 'the results threshold is a percentage up to 100';
  if (isNodeResourceEvent(r.event) && r.threshold != null && r.threshold > 100)
    return 'a node usage threshold is a percentage up to 100';
  if (!isNodeResourceEvent(r.event) && r.for_seconds > 0) return `a ${r.event} rule takes no duration`;
  if (r.stop_task && r.event !== 'error_lines') return 'only an error_lines rule can stop the task';
  if (NODE_EVENTS.includes(r.event) && (r.project_ids.length || r.spider_ids.length || r.tags.length))
    return `a ${r.event} rule covers every node: it takes no projects, spiders or tags`;
  if (!r.quiet_start !== !r.quiet_end) return 'quiet hours need both a start and an end';
  if (r.quiet_start && r.quiet_start === r.quiet_end) return 'quiet hours need a start and an end that differ';
  return null;
}

// ---- history ----

export const ALERT_STATUSES = ['pending', 'delivered', 'failed', 'quiet'] as const;

export const AlertInfo = Type.Object({
  _id: Type.String(),
  /** The alerts of one firing (one per channel) share it. */
  firing_id: Type.String(),
  rule_id: Type.String(),
  rule_name: Type.String(),
  event: Type.String(),
  /** What fired: `task:<id>`, `spider:<id>` or `node:<id>`. */
  subject: Type.String(),
  channel_id: Type.String(),
  channel_name: Type.String(),
  channel_kind: Type.String(),
  title: Type.String(),
  text: Type.String(),
  link: Type.String(),
  status: Type.Union(ALERT_STATUSES.map((s) => Type.Literal(s))),
  attempts: Type.Number(),
  answer_status: Nullable(Type.Number()),
  answer: Type.String(),
  error: Type.String(),
  create_ts: IsoTime,
  update_ts: IsoTime,
});
export type AlertInfo = Static<typeof AlertInfo>;

import { Type } from '@sinclair/typebox';
import {
  ALERT_STATUSES,
  AlertInfo,
  ChannelAttemptResult,
  ChannelBody,
  ChannelInfo,
  ChannelUpdateBody,
  IdParams,
  OkNull,
  RuleBody,
  RuleInfo,
  RuleUpdateBody,
  channelProblem,
  newId,
  okResponse,
  pageFields,
  ruleProblem,
  type ChannelConfig,
  type ChannelKind,
  type NotifyLang,
  type RuleEvent,
} from '@crawldeck/shared';
import type { AppContext, Feature, TypedApp } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { parseIds } from '../schedules/schedules.store.ts';
import { Notifier, channelSecrets, sealSecrets } from './notifications.service.ts';
import { NodeResourceWatch } from './node-resources.ts';
import { RuleEngine } from './rules.ts';
import {
  deleteChannel,
  clearRuleNodeStates,
  deleteRule,
  existingChannelIds,
  findChannel,
  findRule,
  insertChannel,
  insertRule,
  listAlertsPage,
  listChannels,
  listRules,
  updateChannel,
  updateRule,
  type AlertRow,
  type ChannelRow,
  type RuleRow,
} from './notifications.store.ts';

const admin = { access: 'admin' as const };

function presentChannel(ctx: AppContext, r: ChannelRow): ChannelInfo {
  return {
    _id: r.id,
    name: r.name,
    kind: r.kind as ChannelKind,
    lang: r.lang as NotifyLang,
    enabled: !!r.enabled,
    config: JSON.parse(r.config) as ChannelConfig,
    secrets_set: Object.keys(channelSecrets(ctx, r)),
    create_ts: iso(r.create_ts),
    update_ts: iso(r.update_ts),
  };
}

function presentRule(r: RuleRow): RuleInfo {
  return {
    _id: r.id,
    name: r.name,
    event: r.event as RuleEvent,
    threshold: r.threshold,
    stop_task: !!r.stop_task,
    project_ids: parseIds(r.project_ids),
    spider_ids: parseIds(r.spider_ids),
    tags: parseIds(r.tags),
    channel_ids: parseIds(r.channel_ids),
    quiet_start: r.quiet_start,
    quiet_end: r.quiet_end,
    dedupe_minutes: r.dedupe_minutes,
    for_seconds: r.for_seconds,
    enabled: !!r.enabled,
    create_ts: iso(r.create_ts),
    update_ts: iso(r.update_ts),
  };
}

function presentAlert(r: AlertRow): AlertInfo {
  return { ...r, _id: r.id, create_ts: iso(r.create_ts), update_ts: iso(r.update_ts) };
}

/** The rule a create or update leaves, checked as a whole. */
async function checkedRule(ctx: AppContext, r: RuleInfo): Promise<void> {
  const problem = ruleProblem(r);
  if (problem) throw badRequest(problem);
  const known = await existingChannelIds(ctx.store.db, r.channel_ids);
  const missing = r.channel_ids.find((id) => !known.includes(id));
  if (missing) throw badRequest(`no channel ${missing}`);
}

function ruleRow(r: RuleInfo, id: string, createTs: number, now: number): RuleRow {
  return {
    id,
    name: r.name.trim(),
    event: r.event,
    threshold: r.threshold,
    stop_task: r.stop_task ? 1 : 0,
    project_ids: JSON.stringify([...new Set(r.project_ids)]),
    spider_ids: JSON.stringify([...new Set(r.spider_ids)]),
    tags: JSON.stringify([...new Set(r.tags.map((t) => t.trim()))]),
    channel_ids: JSON.stringify([...new Set(r.channel_ids)]),
    quiet_start: r.quiet_start,
    quiet_end: r.quiet_end,
    dedupe_minutes: r.dedupe_minutes,
    for_seconds: r.for_seconds,
    enabled: r.enabled ? 1 : 0,
    create_ts: createTs,
    update_ts: now,
  };
}

/** Settings → Notifications (admin only): channels with a test message, rules, and the alert history. */
export const notificationsFeature: Feature = (app, ctx) => {
  const notifier = new Notifier(ctx);
  const rules = new RuleEngine(ctx, notifier);
  ctx.onClose(() => notifier.close());
  notifier.start();

  const failed = (err: unknown) => ctx.log.error({ err }, 'notification rule check failed');
  ctx.events.on('task.status', (ev) => void rules.taskEnded(ev).catch(failed));
  ctx.events.on('task.log', (ev) => void rules.logged(ev).catch(failed));
  ctx.events.on('node.offline', ({ nodeId }) => void rules.nodeOffline(nodeId).catch(failed));
  ctx.events.on('schedule.skipped', (ev) => void rules.scheduleSkipped(ev).catch(failed));
  ctx.events.on('datasource.failed', (ev) => void rules.dataSourceFailed(ev).catch(failed));
  ctx.events.on('datasource.written', (ev) => void rules.dataSourceWritten(ev).catch(failed));
  new NodeResourceWatch(ctx, notifier).start();

  channelRoutes(app, ctx, notifier);
  ruleRoutes(app, ctx);
  alertRoutes(app, ctx);
};

/** Channels: list, create, update (secrets write-only), delete, and a test message. */
function channelRoutes(app: TypedApp, ctx: AppContext, notifier: Notifier) {
  const { db } = ctx.store;
  const channelRow = async (id: string) => {
    const row = await findChannel(db, id);
    if (!row) throw notFound('channel');
    return row;
  };

  app.get(
    '/api/notifications/channels',
    { config: admin, schema: { response: okResponse(Type.Array(ChannelInfo)) } },
    async () => {
      const rows = await listChannels(db);
      return ok(
        rows.map((r) => presentChannel(ctx, r)),
        rows.length,
      );
    },
  );

  app.put(
    '/api/notifications/channels',
    { config: admin, schema: { body: ChannelBody, response: okResponse(ChannelInfo) } },
    async (req) => {
      const b = req.body;
      const config = b.config ?? {};
      const problem = channelProblem(b.kind, config, b.secrets ?? {});
      if (problem) throw badRequest(problem);
      const now = Date.now();
      const id = newId(now);
      await insertChannel(db, {
        id,
        name: b.name.trim(),
        kind: b.kind,
        lang: b.lang,
        config: JSON.stringify(config),
        secrets_enc: sealSecrets(ctx, b.secrets ?? {}),
        enabled: b.enabled === false ? 0 : 1,
        create_ts: now,
        update_ts: now,
      });
      return ok(presentChannel(ctx, await channelRow(id)));
    },
  );

  app.post(
    '/api/notifications/channels/:id',
    { config: admin, schema: { params: IdParams, body: ChannelUpdateBody, response: okResponse(ChannelInfo) } },
    async (req) => {
      const row = await channelRow(req.params.id);
      const b = req.body;
      const kind = row.kind as ChannelKind;
      const config = b.config ?? (JSON.parse(row.config) as ChannelConfig);
      // Omitted secrets keep their stored value; '' removes one.
      const secrets = { ...channelSecrets(ctx, row), ...(b.secrets ?? {}) };
      const problem = channelProblem(kind, config, secrets);
      if (problem) throw badRequest(problem);
      await updateChannel(db, row.id, {
        name: b.name?.trim() ?? row.name,
        lang: b.lang ?? row.lang,
        enabled: b.enabled === undefined ? row.enabled : b.enabled ? 1 : 0,
        config: JSON.stringify(config),
        secrets_enc: sealSecrets(ctx, secrets),
        update_ts: Date.now(),
      });
      return ok(presentChannel(ctx, await channelRow(row.id)));
    },
  );

  app.delete(
    '/api/notifications/channels/:id',
    { config: admin, schema: { params: IdParams, response: { 200: OkNull } } },
    async (req) => {
      await channelRow(req.params.id);
      await deleteChannel(db, req.params.id);
      return ok(null);
    },
  );

  /** Sends a test message now (one attempt) and answers with what the endpoint said. */
  app.post(
    '/api/notifications/channels/:id/test',
    { config: admin, schema: { params: IdParams, response: okResponse(ChannelAttemptResult) } },
    async (req) => {
      const row = await channelRow(req.params.id);
      return ok(await notifier.test(row, { event: 'test', ruleName: '' }));
    },
  );
}

/** Rules: list, create, update and delete, each checked as a whole against the channels that exist. */
function ruleRoutes(app: TypedApp, ctx: AppContext) {
  const { db } = ctx.store;
  const ruleById = async (id: string) => {
    const row = await findRule(db, id);
    if (!row) throw notFound('rule');
    return row;
  };

  app.get(
    '/api/notifications/rules',
    { config: admin, schema: { response: okResponse(Type.Array(RuleInfo)) } },
    async () => {
      const rows = await listRules(db);
      return ok(rows.map(presentRule), rows.length);
    },
  );

  app.put(
    '/api/notifications/rules',
    { config: admin, schema: { body: RuleBody, response: okResponse(RuleInfo) } },
    async (req) => {
      const b = req.body;
      const now = Date.now();
      const rule: RuleInfo = {
        _id: newId(now),
        name: b.name,
        event: b.event,
        threshold: b.threshold ?? null,
        stop_task: b.stop_task ?? false,
        project_ids: b.project_ids ?? [],
        spider_ids: b.spider_ids ?? [],
        tags: b.tags ?? [],
        channel_ids: b.channel_ids,
        quiet_start: b.quiet_start ?? '',
        quiet_end: b.quiet_end ?? '',
        dedupe_minutes: b.dedupe_minutes ?? 0,
        for_seconds: b.for_seconds ?? 0,
        enabled: b.enabled ?? true,
        create_ts: null,
        update_ts: null,
      };
      await checkedRule(ctx, rule);
      await insertRule(db, ruleRow(rule, rule._id, now, now));
      return ok(presentRule(await ruleById(rule._id)));
    },
  );

  app.post(
    '/api/notifications/rules/:id',
    { config: admin, schema: { params: IdParams, body: RuleUpdateBody, response: okResponse(RuleInfo) } },
    async (req) => {
      const row = await ruleById(req.params.id);
      const defined = Object.fromEntries(Object.entries(req.body).filter(([, v]) => v !== undefined));
      const rule: RuleInfo = { ...presentRule(row), ...defined };
      await checkedRule(ctx, rule);
      const next = ruleRow(rule, row.id, row.create_ts, Date.now());
      await updateRule(db, row.id, next);
      // A node resource rule whose condition changed starts its episodes afresh.
      if (next.event !== row.event || next.threshold !== row.threshold || next.for_seconds !== row.for_seconds)
        await clearRuleNodeStates(db, row.id);
      return ok(presentRule(await ruleById(row.id)));
    },
  );

  app.delete(
    '/api/notifications/rules/:id',
    { config: admin, schema: { params: IdParams, response: { 200: OkNull } } },
    async (req) => {
      await ruleById(req.params.id);
      await deleteRule(db, req.params.id);
      return ok(null);
    },
  );
}

/** The alert history, by page, filtered by rule and status. */
function alertRoutes(app: TypedApp, ctx: AppContext) {
  const { db } = ctx.store;
  app.get(
    '/api/notifications/alerts',
    {
      config: admin,
      schema: {
        querystring: Type.Object({
          ...pageFields(1000),
          rule_id: Type.Optional(IdParams.properties.id),
          status: Type.Optional(Type.Union(ALERT_STATUSES.map((s) => Type.Literal(s)))),
        }),
        response: okResponse(Type.Array(AlertInfo)),
      },
    },
    async (req) => {
      const { rows, total } = await listAlertsPage(db, req.query, paging(req.query, 20));
      return ok(rows.map(presentAlert), total);
    },
  );
}

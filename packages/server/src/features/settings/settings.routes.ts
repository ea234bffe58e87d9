import { AdminSetting, UpdateSettingBody, okResponse, type ActionBody } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import { PUBLIC_URL_KEY, getSetting, putSetting } from '../system/settings.store.ts';
import { ALLOW_SIGNUP_KEY, signupOpen } from '../session/session.routes.ts';
import { allowListProblem } from '../../outbound/addresses.ts';
import { OUTBOUND_ALLOW_KEY } from '../../outbound/policy.ts';
import { USER_TASKS_ON_MASTER_KEY, USER_TASKS_UNSANDBOXED_KEY } from '../execution/placement.ts';
import { StatsForwarder, isValidStatsEndpoint } from './stats-forwarder.ts';
import { NODE_JOIN_SHARED_KEY, joinWithSharedKey } from '../nodes/credentials.ts';

const admin = { access: 'admin' as const };
const ENDPOINT_CACHE_MS = 10_000;

/**
 * Settings → General, admin part: tutorial default (`enable_tutorial`, read publicly by GET /setting) and the
 * optional third-party usage-statistics endpoint, to which the master forwards every stored action.
 */
export const settingsFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const forwarder = new StatsForwarder(ctx.log);
  let endpoint: { at: number; value: string } | undefined;

  async function adminSetting(): Promise<AdminSetting> {
    const [tutorial, stats, allow, signup, onMaster] = await Promise.all([
      getSetting(db, 'enable_tutorial', ctx.config.enableTutorial),
      getSetting(db, 'stats_endpoint', ''),
      getSetting(db, OUTBOUND_ALLOW_KEY, ''),
      signupOpen(db),
      getSetting(db, USER_TASKS_ON_MASTER_KEY, false),
    ]);
    return {
      enable_tutorial: tutorial ? 'Y' : 'N',
      stats_endpoint: stats,
      outbound_allow: allow,
      allow_signup: signup ? 'Y' : 'N',
      user_tasks_on_master: onMaster ? 'Y' : 'N',
      user_tasks_unsandboxed: (await getSetting(db, USER_TASKS_UNSANDBOXED_KEY, false)) ? 'Y' : 'N',
      public_url: await getSetting(db, PUBLIC_URL_KEY, ''),
      node_join_shared_key: (await joinWithSharedKey(db)) ? 'Y' : 'N',
    };
  }

  app.get('/api/system/setting', { config: admin, schema: { response: okResponse(AdminSetting) } }, async () =>
    ok(await adminSetting()),
  );

  app.post(
    '/api/setting',
    { config: admin, schema: { body: UpdateSettingBody, response: okResponse(AdminSetting) } },
    async (req) => {
      const { enable_tutorial, stats_endpoint, outbound_allow, user_tasks_on_master } = req.body;
      const allowProblem = outbound_allow === undefined ? null : allowListProblem(outbound_allow);
      if (allowProblem) throw badRequest(`outbound allow-list: ${allowProblem}`);
      if (stats_endpoint !== undefined && !isValidStatsEndpoint(stats_endpoint.trim())) {
        throw badRequest('stats_endpoint must be an http:// or https:// URL, or empty');
      }
      const publicUrl = req.body.public_url?.trim().replace(/\/+$/, '');
      if (publicUrl && !isValidStatsEndpoint(publicUrl))
        throw badRequest('public_url must be an http:// or https:// URL, or empty');
      if (publicUrl !== undefined) await putSetting(db, PUBLIC_URL_KEY, publicUrl);
      if (enable_tutorial !== undefined) await putSetting(db, 'enable_tutorial', enable_tutorial === 'Y');
      if (req.body.allow_signup !== undefined) await putSetting(db, ALLOW_SIGNUP_KEY, req.body.allow_signup === 'Y');
      if (outbound_allow !== undefined) await putSetting(db, OUTBOUND_ALLOW_KEY, outbound_allow.trim());
      if (req.body.node_join_shared_key !== undefined)
        await putSetting(db, NODE_JOIN_SHARED_KEY, req.body.node_join_shared_key === 'Y');
      if (user_tasks_on_master !== undefined) {
        await putSetting(db, USER_TASKS_ON_MASTER_KEY, user_tasks_on_master === 'Y');
        // Pending tasks may now go to the master's node (on every master sharing the store).
        await ctx.execution.tasksCreated();
      }
      if (req.body.user_tasks_unsandboxed !== undefined) {
        await putSetting(db, USER_TASKS_UNSANDBOXED_KEY, req.body.user_tasks_unsandboxed === 'Y');
        // Pending tasks of normal users may now go to nodes without a sandbox.
        await ctx.execution.tasksCreated();
      }
      if (stats_endpoint !== undefined) {
        await putSetting(db, 'stats_endpoint', stats_endpoint.trim());
        endpoint = undefined;
      }
      return ok(await adminSetting());
    },
  );

  async function statsEndpoint(): Promise<string> {
    if (!endpoint || Date.now() - endpoint.at > ENDPOINT_CACHE_MS)
      endpoint = { at: Date.now(), value: await getSetting(db, 'stats_endpoint', '') };
    return endpoint.value;
  }

  // Forward each action the collector stored (PUT /api/actions answered 200), after the reply is sent.
  app.addHook('onResponse', async (req, reply) => {
    if (req.method !== 'PUT' || req.routeOptions.url !== '/api/actions' || reply.statusCode !== 200) return;
    const url = await statsEndpoint().catch(() => '');
    if (!url) return;
    const body = req.body as ActionBody;
    void forwarder.forward(url, {
      type: body.type,
      params: body.params ?? {},
      user_id: req.user?.id ?? null,
      ts: new Date().toISOString(),
      source: 'crawldeck',
    });
  });
};

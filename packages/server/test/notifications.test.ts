import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitTask } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { notifyTaskHelpers } from './support/notify-tasks.ts';
import {
  DINGTALK_SECRET,
  FEISHU_SECRET,
  SMTP_PASS,
  SMTP_USER,
  TELEGRAM_TOKEN,
  WEBHOOK_SECRET,
  startChatEndpoints,
  startMailServer,
  type ChatEndpoints,
  type MailServer,
} from './support/notify-endpoints.ts';

// Channels deliver to local stand-ins of every app (payload and signature checked as the app does); rules fire
// once for their condition and not for its near miss; the same rule and spider send once within the window.
const KEY = 'notify-key';
let m: TestMaster;
let chat: ChatEndpoints;
let smtp: MailServer;
let smtps: MailServer;
let sim: SimNode;
const channels: Record<string, string> = {};

const put = async (route: string, body: unknown) => {
  const r = await m.api('PUT', route, { body });
  expect(r.status, r.body.error).toBe(200);
  return r.body.data._id as string;
};

function channelBodies(): Record<string, Record<string, unknown>> {
  const b = chat.base;
  const email = (port: number, security: string) => ({
    kind: 'email',
    config: {
      host: 'localhost',
      port,
      security,
      skip_verify: true,
      username: SMTP_USER,
      from: 'crawldeck@example.com',
      to: ['ops@example.com'],
    },
    secrets: { password: SMTP_PASS },
  });
  return {
    slack: { kind: 'slack', secrets: { url: `${b}/slack/T0/B0/x` } },
    discord: { kind: 'discord', secrets: { url: `${b}/discord/1/abc` } },
    dingtalk: {
      kind: 'dingtalk',
      lang: 'zh',
      secrets: { url: `${b}/dingtalk?access_token=t`, secret: DINGTALK_SECRET },
    },
    wecom: { kind: 'wecom', lang: 'zh', secrets: { url: `${b}/wecom?key=k` } },
    feishu: { kind: 'feishu', lang: 'zh', secrets: { url: `${b}/feishu/hook/x`, secret: FEISHU_SECRET } },
    telegram: {
      kind: 'telegram',
      config: { chat_id: '-100', api_base: `${b}/telegram` },
      secrets: { token: TELEGRAM_TOKEN },
    },
    webhook: { kind: 'webhook', config: { url: `${b}/webhook` }, secrets: { secret: WEBHOOK_SECRET } },
    smtp: email(smtp.port, 'starttls'),
    smtps: email(smtps.port, 'tls'),
  };
}

beforeAll(async () => {
  chat = await startChatEndpoints();
  [smtp, smtps] = await Promise.all([startMailServer(chat.inbox, false), startMailServer(chat.inbox, true)]);
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, webhookBackoffMs: 20 });
  sim = new SimNode({ master: m.url, key: KEY, name: 'notify-node', onAssign: (n, t) => n.started(t.taskId) });
  await sim.connect();
  expect((await m.api('POST', '/setting', { body: { public_url: 'https://crawl.example.com/' } })).status).toBe(200);
  for (const [app, body] of Object.entries(channelBodies()))
    channels[app] = await put('/notifications/channels', { name: app, lang: 'en', ...body });
});
afterAll(async () => {
  sim?.close();
  await m?.close();
  await Promise.all([chat?.close(), smtp?.close(), smtps?.close()]);
});

describe('channels', () => {
  it('a test message reaches every kind of channel and shows the answer', async () => {
    for (const [app, id] of Object.entries(channels)) {
      const r = await m.api('POST', `/notifications/channels/${id}/test`);
      expect(r.status).toBe(200);
      expect(r.body.data.ok, `${app}: ${r.body.data.error}`).toBe(true);
    }
    const answers = await m.api('POST', `/notifications/channels/${channels.dingtalk}/test`);
    expect(answers.body.data.answer).toContain('"errcode":0');
    const mail = await m.api('POST', `/notifications/channels/${channels.smtp}/test`);
    expect(mail.body.data.answer).toMatch(/^250 /);
    const mails = chat.inbox.of('smtp');
    expect(mails[0].body).toMatchObject({ tls: true, to: ['ops@example.com'], user: SMTP_USER });
    expect(mails[0].text).toContain('Subject: [Crawldeck] Test message from Crawldeck');
    expect(chat.inbox.of('smtps')[0].body).toMatchObject({ tls: true });
    expect(chat.inbox.of('dingtalk')[0].text).toContain('Crawldeck 测试消息');
  });

  it('a wrong signing secret gets the app’s refusal, shown as it came', async () => {
    const id = await put('/notifications/channels', {
      name: 'bad ding',
      lang: 'en',
      kind: 'dingtalk',
      secrets: { url: `${chat.base}/dingtalk?access_token=t`, secret: 'not-the-secret' },
    });
    const r = await m.api('POST', `/notifications/channels/${id}/test`);
    expect(r.body.data).toMatchObject({ ok: false, status: 200 });
    expect(r.body.data.answer).toContain('310000');
    const feishu = await put('/notifications/channels', {
      name: 'bad feishu',
      lang: 'en',
      kind: 'feishu',
      secrets: { url: `${chat.base}/feishu/hook/x`, secret: DINGTALK_SECRET },
    });
    expect((await m.api('POST', `/notifications/channels/${feishu}/test`)).body.data.answer).toContain('19021');
    const mail = await put('/notifications/channels', {
      ...channelBodies().smtp,
      name: 'strict tls',
      lang: 'en',
      config: { ...(channelBodies().smtp.config as object), skip_verify: false },
    });
    const refused = await m.api('POST', `/notifications/channels/${mail}/test`);
    expect(refused.body.data.ok).toBe(false);
    expect(refused.body.data.error).toMatch(/certificate/i);
  });

  it('never answers a secret, and refuses what does not fit the kind with a 400', async () => {
    const list = await m.api('GET', '/notifications/channels');
    const text = JSON.stringify(list.body.data);
    for (const secret of [SMTP_PASS, TELEGRAM_TOKEN, DINGTALK_SECRET, FEISHU_SECRET, WEBHOOK_SECRET, '/slack/T0'])
      expect(text).not.toContain(secret);
    const tg = list.body.data.find((c: { _id: string }) => c._id === channels.telegram);
    expect(tg.secrets_set).toEqual(['token']);
    const bad = [
      { name: 'x', kind: 'slack', lang: 'en', config: { host: 'smtp.example.com' }, secrets: { url: 'http://a/b' } },
      { name: 'x', kind: 'slack', lang: 'en' },
      { name: 'x', kind: 'telegram', lang: 'en', config: { chat_id: '1' }, secrets: { token: 't', url: 'http://a' } },
      {
        name: 'x',
        kind: 'email',
        lang: 'en',
        config: { host: 'h', port: 25, security: 'none', from: 'no', to: ['a@b'] },
      },
      { name: 'x', kind: 'discord', lang: 'en', secrets: { url: 'ftp://a/b' } },
    ];
    for (const body of bad) {
      const r = await m.api('PUT', '/notifications/channels', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBeTruthy();
    }
  });
});

const { endTask, alertsOf, delivered } = notifyTaskHelpers(
  () => m,
  () => sim,
);

describe('rules', () => {
  it('task failed and timed out each fire once, for their own tasks only, to every channel', async () => {
    const spider = await makeSpider(m, 'fails', 'echo x');
    const other = await makeSpider(m, 'other', 'echo x');
    const all = Object.values(channels);
    const failed = await put('/notifications/rules', {
      name: 'failed',
      event: 'task_failed',
      spider_ids: [spider],
      channel_ids: all,
    });
    const timedOut = await put('/notifications/rules', {
      name: 'slow',
      event: 'task_timed_out',
      spider_ids: [spider],
      channel_ids: [channels.webhook],
    });
    chat.failNext.add('discord'); // the first attempt to Discord fails and is retried
    await endTask(other, { status: 'error', error: 'exit code 1' }); // not covered by either rule
    const slowTask = await endTask(spider, { status: 'error', error: 'timed out after 5 s' });
    const failTask = await endTask(spider, { status: 'error', error: 'exit code 1' });
    const fails = await delivered(failed, all.length);
    expect(fails).toHaveLength(all.length);
    expect(fails.every((a) => a.text.includes(failTask))).toBe(true);
    expect(fails[0].link).toBe(`https://crawl.example.com/tasks/${failTask}`);
    const slow = await delivered(timedOut, 1);
    expect(slow).toHaveLength(1);
    expect(slow[0].text).toContain(slowTask);
    const discord = (await alertsOf(failed)).find((a) => a.text && a.status === 'delivered' && a.attempts === 2);
    expect(discord, 'the Discord alert was delivered on its second attempt').toBeTruthy();
    const metrics = await fetch(`${m.url}/metrics`, { headers: { authorization: m.adminToken } });
    expect(await metrics.text()).toMatch(/crawldeck_rule_firings_total\{event="task_failed"\} 1\n/);
  });

  it('finished with errors fires for error lines, not for a clean finish; tags route it', async () => {
    const project = await put('/projects', { name: 'shop', tags: ['prod'] });
    const spider = await makeSpider(m, 'tagged', 'echo x', {}, { project_id: project });
    const rule = await put('/notifications/rules', {
      name: 'errors',
      event: 'task_finished_with_errors',
      tags: ['prod'],
      channel_ids: [channels.slack],
    });
    await endTask(spider, { status: 'finished' });
    const bad = await endTask(spider, { status: 'finished', errorLines: 1 });
    const list = await delivered(rule, 1);
    expect(list).toHaveLength(1);
    expect(list[0].text).toContain(bad);
  });

  it('error lines ≥ N fire once during the run and stop the task', async () => {
    const spider = await makeSpider(m, 'noisy', 'echo x');
    const rule = await put('/notifications/rules', {
      name: 'noisy',
      event: 'error_lines',
      threshold: 3,
      stop_task: true,
      spider_ids: [spider],
      channel_ids: [channels.wecom],
    });
    const [taskId] = await runSpider(m, spider);
    await waitTask(m, taskId, ['running']);
    await sim.shipLogs(taskId, 0, ['ERROR: one', 'ERROR: two', 'fine']);
    expect(await alertsOf(rule)).toHaveLength(0);
    await sim.shipLogs(taskId, 3, ['ERROR: three', 'ERROR: four']);
    const list = await delivered(rule, 1);
    expect(list[0].text).toContain('错误日志行数: 4 (≥ 3)'); // a channel in Chinese
    await waitTask(m, taskId, ['cancelled']);
    await sim.shipLogs(taskId, 5, ['ERROR: five']).catch(() => 0);
    expect(await alertsOf(rule)).toHaveLength(1);
  });

  it('results below X % of the usual fire; at the threshold they do not', async () => {
    const spider = await makeSpider(m, 'shop-items', 'echo x');
    const rule = await put('/notifications/rules', {
      name: 'few',
      event: 'results_below',
      threshold: 50,
      spider_ids: [spider],
      channel_ids: [channels.telegram],
    });
    for (let i = 0; i < 3; i++) await endTask(spider, { status: 'finished', items: 20 });
    await endTask(spider, { status: 'finished', items: 10 }); // exactly 50 % of 20: no alert
    const few = await endTask(spider, { status: 'finished', items: 9 });
    const list = await delivered(rule, 1);
    expect(list).toHaveLength(1);
    expect(list[0].text).toContain(few);
  });

  it('the same rule and spider send once within the window; quiet hours keep the alert unsent', async () => {
    const spider = await makeSpider(m, 'flaps', 'echo x');
    const once = await put('/notifications/rules', {
      name: 'once',
      event: 'task_failed',
      spider_ids: [spider],
      dedupe_minutes: 60,
      channel_ids: [channels.feishu],
    });
    const every = await put('/notifications/rules', {
      name: 'every',
      event: 'task_failed',
      spider_ids: [spider],
      channel_ids: [channels.webhook],
    });
    const hh = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
    const now = new Date().getHours();
    const quiet = await put('/notifications/rules', {
      name: 'night',
      event: 'task_failed',
      spider_ids: [spider],
      quiet_start: hh(now - 1),
      quiet_end: hh(now + 2),
      channel_ids: [channels.discord],
    });
    await endTask(spider, { status: 'error', error: 'exit code 2' });
    await endTask(spider, { status: 'error', error: 'exit code 3' });
    await delivered(every, 2);
    expect(await alertsOf(once)).toHaveLength(1);
    const hushed = await alertsOf(quiet);
    expect(hushed.map((a) => a.status)).toEqual(['quiet', 'quiet']);
  });

  it('run time above Y × usual fires; within it, it does not', async () => {
    const spider = await makeSpider(m, 'slowpoke', 'echo x');
    const rule = await put('/notifications/rules', {
      name: 'slow runs',
      event: 'runtime_above',
      threshold: 3,
      spider_ids: [spider],
      channel_ids: [channels.discord],
    });
    const { db } = m.master.store;
    /** Sets a task's start so that it ran `ms` (finished tasks) or has run `ms` by now (running ones). */
    const ranFor = async (id: string, ms: number) => {
      const t = await db.selectFrom('tasks').select('finish_ts').where('id', '=', id).executeTakeFirstOrThrow();
      await db
        .updateTable('tasks')
        .set({ start_ts: Number(t.finish_ts ?? Date.now()) - ms })
        .where('id', '=', id)
        .execute();
    };
    const first = await endTask(spider, { status: 'finished' });
    await ranFor(first, 3_600_000);
    const quick = await endTask(spider, { status: 'finished' }); // far below 3 × an hour: no alert
    for (const id of [first, quick]) await ranFor(id, 1000);
    const [slow] = await runSpider(m, spider);
    await waitTask(m, slow, ['running']);
    await ranFor(slow, 60_000);
    sim.finished(slow);
    await waitTask(m, slow, ['finished']);
    const list = await delivered(rule, 1);
    expect(list).toHaveLength(1);
    expect(list[0].text).toContain(slow);
  });

  it('a schedule fire that creates no task fires; one that runs does not', async () => {
    const spider = await makeSpider(m, 'scheduled', 'echo x');
    const rule = await put('/notifications/rules', {
      name: 'skipped',
      event: 'schedule_skipped',
      spider_ids: [spider],
      channel_ids: [channels.slack],
    });
    const schedule = (nodeIds?: string[]) =>
      put('/schedules', {
        name: nodeIds ? 'gone node' : 'fine',
        cron: '0 0 0 1 1 *',
        spider_id: spider,
        ...(nodeIds ? { run_type: 'selected-nodes', node_ids: nodeIds } : {}),
      });
    const fine = await schedule();
    expect((await m.api('POST', `/schedules/${fine}/run`)).status).toBe(200);
    const broken = await schedule(['0123456789abcdef01234567']);
    // Run now answers with the reason the fire created no task.
    expect((await m.api('POST', `/schedules/${broken}/run`)).status).toBe(400);
    const list = await delivered(rule, 1);
    expect(list.map((a) => a.subject)).toEqual([`schedule:${broken}`]);
    expect(list[0].text).toContain('Schedule: gone node');
  });

  it('a deleted channel leaves the rules that sent to it', async () => {
    const spare = await put('/notifications/channels', {
      name: 'spare',
      kind: 'wecom',
      lang: 'en',
      secrets: { url: `${chat.base}/wecom?key=s` },
    });
    const rule = await put('/notifications/rules', {
      name: 'two',
      event: 'task_abnormal',
      channel_ids: [channels.slack, spare],
    });
    expect((await m.api('DELETE', `/notifications/channels/${spare}`)).status).toBe(200);
    const rules = (await m.api('GET', '/notifications/rules')).body.data as { _id: string; channel_ids: string[] }[];
    expect(rules.find((r) => r._id === rule)?.channel_ids).toEqual([channels.slack]);
  });

  it('refuses a rule that does not fit its event with a 400', async () => {
    const bad = [
      { name: 'x', event: 'task_failed', threshold: 3, channel_ids: [channels.slack] },
      { name: 'x', event: 'error_lines', channel_ids: [channels.slack] },
      { name: 'x', event: 'results_below', threshold: 150, channel_ids: [channels.slack] },
      { name: 'x', event: 'task_failed', stop_task: true, channel_ids: [channels.slack] },
      { name: 'x', event: 'node_offline', tags: ['prod'], channel_ids: [channels.slack] },
      { name: 'x', event: 'task_failed', quiet_start: '22:00', channel_ids: [channels.slack] },
      { name: 'x', event: 'task_failed', channel_ids: ['0123456789abcdef01234567'] },
    ];
    for (const body of bad)
      expect((await m.api('PUT', '/notifications/rules', { body })).status, JSON.stringify(body)).toBe(400);
  });
});

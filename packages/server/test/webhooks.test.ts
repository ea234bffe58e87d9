import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

// Short backoff so the retries of a failing receiver are observed quickly (read when the master starts).
process.env.CRAWLDECK_WEBHOOK_BACKOFF_MS = '50';
process.env.CRAWLDECK_WEBHOOK_TIMEOUT_MS = '1000';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local receiver: records every request; answers with `status(path)` (default 200). */
function receiver() {
  const got: Received[] = [];
  const statusFor = new Map<string, number>();
  const hang = new Set<string>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      got.push({ path, headers: req.headers, body, at: Date.now() });
      if (hang.has(path)) return; // never answers: the master's timeout must end the attempt
      res.statusCode = statusFor.get(path) ?? 200;
      res.end('thanks');
    });
  });
  return {
    got,
    statusFor,
    hang,
    async start() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 20_000,
  stepMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(stepMs);
  }
}

const sig = (secret: string, body: string) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');

let m: TestMaster;
const rx = receiver();
let base = '';

beforeAll(async () => {
  base = await rx.start();
  m = await startTestMaster({ embeddedNode: true });
});
afterAll(async () => {
  await m?.close();
  await rx.close();
});

async function spider(name: string, cmd: string): Promise<string> {
  const r = await m.api('PUT', '/spiders', { body: { name, cmd } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data._id;
}

describe('webhooks: management', () => {
  it('requires a valid http(s) URL and at least one event', async () => {
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [{ url: '', events: ['task_finished'] }, 'A webhook URL is required'],
      [{ url: '   ', events: ['task_finished'] }, 'A webhook URL is required'],
      [{ url: 'ftp://example.com/x', events: ['task_finished'] }, /http:\/\/ or https:\/\//],
      [{ url: 'not a url', events: ['task_finished'] }, /http:\/\/ or https:\/\//],
      [{ url: 'https://example.com/hook', events: [] }, /at least one event/],
      [
        { url: 'https://example.com/hook', events: ['task_finished'], template: '{"a": {{task.id}' },
        /template must be JSON/,
      ],
    ];
    for (const [body, msg] of cases) {
      const r = await m.api('PUT', '/webhooks', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toMatch(msg);
    }
    const unknownEvent = await m.api('PUT', '/webhooks', {
      body: { url: 'https://example.com', events: ['task_started'] },
    });
    expect(unknownEvent.status).toBe(400);
    expect((await m.api('GET', '/webhooks')).body.data).toHaveLength(0);
  });

  it('is admin-only and never returns the secret', async () => {
    const user = await m.createUser('hook-user');
    expect((await m.api('GET', '/webhooks', { token: user })).status).toBe(403);
    expect(
      (await m.api('PUT', '/webhooks', { token: user, body: { url: `${base}/x`, events: ['task_finished'] } })).status,
    ).toBe(403);
    const r = await m.api('PUT', '/webhooks', {
      body: { url: `${base}/x`, events: ['task_finished'], secret: 's3cr3t', enabled: false },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ has_secret: true, enabled: false, events: ['task_finished'], spider_ids: [] });
    expect(JSON.stringify(r.body)).not.toContain('s3cr3t');
    const list = await m.api('GET', '/webhooks');
    expect(JSON.stringify(list.body)).not.toContain('s3cr3t');
    // Omitted secret keeps it, '' removes it.
    const kept = await m.api('POST', `/webhooks/${r.body.data._id}`, { body: { name: 'renamed' } });
    expect(kept.body.data).toMatchObject({ name: 'renamed', has_secret: true });
    const removed = await m.api('POST', `/webhooks/${r.body.data._id}`, { body: { secret: '' } });
    expect(removed.body.data.has_secret).toBe(false);
    expect((await m.api('POST', `/webhooks/${r.body.data._id}`, { body: { url: 'mailto:x@y.z' } })).status).toBe(400);
    expect((await m.api('DELETE', `/webhooks/${r.body.data._id}`)).status).toBe(200);
    expect((await m.api('GET', `/webhooks/${r.body.data._id}`)).status).toBe(404);
  });

  it('sends a signed test delivery and logs it', async () => {
    const r = await m.api('PUT', '/webhooks', { body: { url: `${base}/test`, events: ['task_error'], secret: 'k' } });
    const id = r.body.data._id;
    const t = await m.api('POST', `/webhooks/${id}/test`);
    expect(t.status).toBe(200);
    expect(t.body.data).toMatchObject({ ok: true, http_status: 200 });
    const hit = rx.got.find((g) => g.path === '/test')!;
    expect(hit.headers['x-crawldeck-event']).toBe('test');
    expect(hit.headers['x-crawldeck-signature']).toBe(sig('k', hit.body));
    const log = await m.api('GET', `/webhooks/${id}/deliveries`);
    expect(log.body.total).toBe(1);
    expect(log.body.data[0]).toMatchObject({
      event: 'test',
      attempt: 1,
      ok: true,
      http_status: 200,
      response_body: 'thanks',
    });
    await m.api('DELETE', `/webhooks/${id}`);
  });
});

describe('webhooks: delivery', () => {
  it('posts a correctly signed webhook for a finished and an errored task', async () => {
    const secret = 'topsecret';
    const hook = await m.api('PUT', '/webhooks', {
      body: { name: 'ci', url: `${base}/tasks`, events: ['task_finished', 'task_error'], secret },
    });
    expect(hook.status).toBe(200);
    const okSpider = await spider('hook-ok', 'echo fine');
    const badSpider = await spider('hook-bad', 'echo broken; exit 7');
    const [okTask] = (await m.api('PUT', '/tasks', { body: { spider_id: okSpider } })).body.data;
    const [badTask] = (await m.api('PUT', '/tasks', { body: { spider_id: badSpider } })).body.data;
    const hits = await until(() => {
      const h = rx.got.filter((g) => g.path === '/tasks');
      return h.length >= 2 && h;
    }, 45_000);
    for (const h of hits) {
      expect(h.headers['content-type']).toBe('application/json');
      expect(h.headers['x-crawldeck-signature']).toBe(sig(secret, h.body));
      expect(h.headers['x-crawldeck-delivery']).toMatch(/^[0-9a-f]{24}$/);
    }
    const bodies = hits.map((h) => JSON.parse(h.body));
    const fin = bodies.find((b) => b.task.id === okTask);
    const err = bodies.find((b) => b.task.id === badTask);
    expect(fin).toMatchObject({
      event: 'task_finished',
      task: { status: 'finished', spider_id: okSpider, spider_name: 'hook-ok' },
    });
    expect(err).toMatchObject({ event: 'task_error', task: { status: 'error', spider_name: 'hook-bad' } });
    expect(hits.find((h) => JSON.parse(h.body).task.id === badTask)!.headers['x-crawldeck-event']).toBe('task_error');
    // A tampered body would not match the signature.
    expect(sig('wrong', hits[0].body)).not.toBe(hits[0].headers['x-crawldeck-signature']);
    await m.api('DELETE', `/webhooks/${hook.body.data._id}`);
  });

  it('renders a JSON template with escaped values and honours the per-spider filter', async () => {
    const quoted = await spider('say "hi"', 'echo ok');
    const other = await spider('other-one', 'echo ok');
    const template =
      '{"text": "Task {{task.id}} of {{task.spider_name}} is {{task.status}}", "param": "{{task.param}}", "count": {{task.result_count}}, "missing": {{task.nope}}}';
    const hook = await m.api('PUT', '/webhooks', {
      body: { url: `${base}/tpl`, events: ['task_finished'], spider_ids: [quoted], template },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    const [t1] = (await m.api('PUT', '/tasks', { body: { spider_id: quoted, param: 'a\\b "c"\n' } })).body.data;
    await m.api('PUT', '/tasks', { body: { spider_id: other } });
    const hit = await until(() => rx.got.find((g) => g.path === '/tpl'), 45_000);
    const body = JSON.parse(hit.body);
    expect(body).toEqual({ text: `Task ${t1} of say "hi" is finished`, param: 'a\\b "c"\n', count: 0, missing: null });
    // The other spider's task finishes too, but this hook only watches the first spider.
    await until(async () => {
      const rows = await m.master.store.db
        .selectFrom('tasks')
        .select('status')
        .where('spider_id', '=', other)
        .execute();
      return rows.length > 0 && rows.every((r) => r.status === 'finished');
    }, 45_000);
    await sleep(500);
    expect(rx.got.filter((g) => g.path === '/tpl')).toHaveLength(1);
    await m.api('DELETE', `/webhooks/${hook.body.data._id}`);
  });

  it('retries with backoff when the receiver answers 500, logging every attempt', async () => {
    rx.statusFor.set('/fail', 500);
    const hook = await m.api('PUT', '/webhooks', { body: { url: `${base}/fail`, events: ['task_finished'] } });
    const id = hook.body.data._id;
    const sid = await spider('hook-retry', 'echo ok');
    await m.api('PUT', '/tasks', { body: { spider_id: sid } });
    // 1 attempt + 5 retries.
    const hits = await until(() => {
      const h = rx.got.filter((g) => g.path === '/fail');
      return h.length >= 6 && h;
    }, 45_000);
    await sleep(1000);
    expect(rx.got.filter((g) => g.path === '/fail')).toHaveLength(6);
    // Exponential backoff: 50, 100, 200, 400, 800 ms between attempts (at least).
    const gaps = hits.slice(1).map((h, i) => h.at - hits[i].at);
    for (let i = 0; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(50 * 2 ** i - 5);
    expect(new Set(hits.map((h) => h.headers['x-crawldeck-delivery'])).size).toBe(1);
    const log = await m.api('GET', `/webhooks/${id}/deliveries`, { query: { page_size: 50 } });
    expect(log.body.total).toBe(6);
    expect(log.body.data.map((d: any) => d.attempt).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    for (const d of log.body.data) expect(d).toMatchObject({ ok: false, http_status: 500, error: 'HTTP 500' });
    expect((await m.api('GET', `/webhooks/${id}`)).body.data.last_status).toBe('failed');

    // Succeeds on a later attempt: retries stop there.
    rx.statusFor.delete('/fail');
    rx.statusFor.set('/flaky', 500);
    const flaky = await m.api('PUT', '/webhooks', { body: { url: `${base}/flaky`, events: ['task_finished'] } });
    await m.api('DELETE', `/webhooks/${id}`);
    await m.api('PUT', '/tasks', { body: { spider_id: sid } });
    await until(() => rx.got.filter((g) => g.path === '/flaky').length >= 2, 45_000);
    rx.statusFor.delete('/flaky');
    await until(
      async () => (await m.api('GET', `/webhooks/${flaky.body.data._id}`)).body.data.last_status === 'success',
      10_000,
    );
    const n = rx.got.filter((g) => g.path === '/flaky').length;
    await sleep(1000);
    expect(rx.got.filter((g) => g.path === '/flaky')).toHaveLength(n);
    await m.api('DELETE', `/webhooks/${flaky.body.data._id}`);
  });

  it('times out a receiver that never answers, without holding up tasks', async () => {
    rx.hang.add('/hang');
    const hook = await m.api('PUT', '/webhooks', { body: { url: `${base}/hang`, events: ['task_finished'] } });
    const sid = await spider('hook-hang', 'echo ok');
    const [t1] = (await m.api('PUT', '/tasks', { body: { spider_id: sid } })).body.data;
    const [t2] = (await m.api('PUT', '/tasks', { body: { spider_id: sid } })).body.data;
    // Both tasks finish although the receiver hangs.
    await until(async () => {
      const rows = await m.master.store.db.selectFrom('tasks').select('status').where('id', 'in', [t1, t2]).execute();
      return rows.every((r) => r.status === 'finished');
    }, 45_000);
    const log = await until(async () => {
      const r = await m.api('GET', `/webhooks/${hook.body.data._id}/deliveries`);
      return (r.body.total ?? 0) >= 1 && r.body.data;
    }, 10_000);
    expect(log[0].error).toMatch(/timed out/);
    await m.api('DELETE', `/webhooks/${hook.body.data._id}`);
  });

  it('announces a cancelled running task once, although the node confirms the cancel later', async () => {
    const hook = await m.api('PUT', '/webhooks', { body: { url: `${base}/cancelled`, events: ['task_cancelled'] } });
    const sid = await spider('hook-cancel', 'sleep 30');
    const [taskId] = (await m.api('PUT', '/tasks', { body: { spider_id: sid } })).body.data;
    await until(async () => (await m.api('GET', `/tasks/${taskId}`)).body.data.status === 'running', 30_000);
    await m.api('POST', `/tasks/${taskId}/cancel`);
    // The node's report of the stopped process (its exit code) is the second status event of the cancel.
    await until(async () => (await m.api('GET', `/tasks/${taskId}`)).body.data.exit_code != null, 30_000);
    await until(() => rx.got.some((g) => g.path === '/cancelled'));
    await until(async () => !(await m.master.store.db.selectFrom('outbox').select('id').executeTakeFirst()));
    expect(rx.got.filter((g) => g.path === '/cancelled')).toHaveLength(1);
    expect(JSON.parse(rx.got.find((g) => g.path === '/cancelled')!.body)).toMatchObject({
      event: 'task_cancelled',
      task: { id: taskId, status: 'cancelled' },
    });
    await m.api('DELETE', `/webhooks/${hook.body.data._id}`);
  });

  it('delivers node_offline when the nodes feature reports a node offline', async () => {
    const hook = await m.api('PUT', '/webhooks', { body: { url: `${base}/nodes`, events: ['node_offline'] } });
    const node = await m.master.store.db.selectFrom('nodes').select(['id', 'name']).executeTakeFirstOrThrow();
    // Status changes alone (a disconnect, the console's node views) are no offline transition.
    m.master.ctx.events.emit('node.status', { nodeId: node.id, status: 'offline' });
    // The event the task runtime emits once when a node's offline window ran out.
    m.master.ctx.events.emit('node.offline', { nodeId: node.id });
    const hit = await until(() => rx.got.find((g) => g.path === '/nodes'));
    expect(JSON.parse(hit.body)).toMatchObject({ event: 'node_offline', node: { id: node.id, name: node.name } });
    expect(hit.headers['x-crawldeck-event']).toBe('node_offline');
    await until(async () => !(await m.master.store.db.selectFrom('outbox').select('id').executeTakeFirst()));
    expect(rx.got.filter((g) => g.path === '/nodes')).toHaveLength(1);
    await m.api('DELETE', `/webhooks/${hook.body.data._id}`);
  });
});

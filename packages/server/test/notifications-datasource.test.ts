import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { addDataSource, generatorSpider, mysqlTarget, type TargetDb } from './datasources.helpers.ts';
import { runSpider, waitFor, waitTask } from './tasks.helpers.ts';
import { WEBHOOK_SECRET, startChatEndpoints, type ChatEndpoints } from './support/notify-endpoints.ts';

// The results-database-stalled rule: a task whose items its data source does not take fires the rule once for the
// data source however many batches fail; a task writing into a healthy one fires nothing; once writes go through
// again the episode is over, and the next stall fires again.
const WRITE_MS = 1000;
let m: TestMaster;
let chat: ChatEndpoints;
let target: TargetDb;
let gate: Gate;

/**
 * A loopback door to the shared MariaDB: open, it passes connections through; shut, it accepts connections and
 * answers nothing on them, new or already open, as a frozen database server does.
 */
interface Gate {
  port: number;
  open(): void;
  shut(): void;
  close(): Promise<void>;
}

async function startGate(upstreamPort: number): Promise<Gate> {
  let passing = true;
  const held = new Set<net.Socket>();
  const piped = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    held.add(socket);
    socket.on('close', () => held.delete(socket));
    if (!passing) return;
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    const pair: [net.Socket, net.Socket] = [socket, upstream];
    piped.add(pair);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => {
      upstream.destroy();
      piped.delete(pair);
    });
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dropHeld = () => held.forEach((s) => s.destroy());
  return {
    port: (server.address() as AddressInfo).port,
    open() {
      passing = true;
      dropHeld();
    },
    shut() {
      passing = false;
      for (const [socket, upstream] of piped) {
        socket.unpipe(upstream);
        upstream.unpipe(socket);
        socket.pause();
        upstream.pause();
      }
      piped.clear();
    },
    close: () => {
      dropHeld();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

beforeAll(async () => {
  chat = await startChatEndpoints();
  target = await mysqlTarget();
  gate = await startGate(3306);
  m = await startTestMaster({ embeddedNode: true, dataSourceWriteMs: WRITE_MS, webhookBackoffMs: 20 });
  expect((await m.api('POST', '/setting', { body: { public_url: 'https://crawl.example.com' } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await m?.close();
  await gate?.close();
  await target?.drop();
  await chat?.close();
});

const alerts = async (ruleId: string) =>
  (await m.api('GET', '/notifications/alerts', { query: { rule_id: ruleId } })).body.data as {
    subject: string;
    text: string;
    link: string;
  }[];

describe('results database stalled', () => {
  it('fires once per data source per stall, not for a healthy one, and again after writes went through', async () => {
    const failures: string[] = [];
    m.master.ctx.events.on('datasource.failed', (ev) => failures.push(ev.taskId));
    const hook = await m.api('PUT', '/notifications/channels', {
      body: {
        name: 'hook',
        kind: 'webhook',
        lang: 'en',
        config: { url: `${chat.base}/webhook` },
        secrets: { secret: WEBHOOK_SECRET },
      },
    });
    const rule = await m.api('PUT', '/notifications/rules', {
      body: { name: 'db stuck', event: 'results_db_stalled', channel_ids: [hook.body.data._id], dedupe_minutes: 0 },
    });
    expect(rule.status, rule.body.error).toBe(200);
    const ruleId = rule.body.data._id as string;

    const healthy = await addDataSource(m, target);
    const flaky = await addDataSource(m, { ...target, body: { ...target.body, name: 'flaky', port: gate.port } });
    const toHealthy = await generatorSpider(m, 'to-healthy', healthy, {}, 'healthy_items');
    const toFlaky = await generatorSpider(m, 'to-flaky', flaky, {}, 'flaky_items');

    // Near miss: items written into a database that answers.
    const [ok] = await runSpider(m, toHealthy, { param: '20 mixed' });
    expect(await waitTask(m, ok, ['finished', 'error'], 60_000)).toMatchObject({
      status: 'finished',
      result_count: 20,
    });

    gate.shut();
    const [stuck] = await runSpider(m, toFlaky, { param: '30 mixed' });
    await chat.inbox.wait('webhook', 1);
    const first = await alerts(ruleId);
    expect(first).toHaveLength(1);
    expect(first[0].subject).toBe(`datasource:${flaky}`);
    expect(first[0].text).toContain('Data source: flaky');
    expect(first[0].text).toContain(`did not answer within ${WRITE_MS / 1000} s`);
    expect(first[0].link).toBe(`https://crawl.example.com/tasks/${stuck}`);
    // The node sends the batch again and it fails again: the same stall sends nothing more.
    const seen = failures.length;
    await waitFor('two more failed writes', async () => failures.length >= seen + 2, 60_000);
    expect(await alerts(ruleId)).toHaveLength(1);

    // The database answers again: the task's items go through and the stall is over.
    gate.open();
    expect(await waitTask(m, stuck, ['finished', 'error'], 60_000)).toMatchObject({
      status: 'finished',
      result_count: 30,
    });
    await waitFor('the stall to be over', async () => {
      const claim = await m.master.store.db
        .selectFrom('notify_claims')
        .select('rule_id')
        .where('subject', '=', `stall:${flaky}`)
        .executeTakeFirst();
      return !claim;
    });
    expect(await alerts(ruleId)).toHaveLength(1);

    // A new stall is a new episode.
    gate.shut();
    const [again] = await runSpider(m, toFlaky, { param: '10 mixed' });
    await chat.inbox.wait('webhook', 2);
    const second = await alerts(ruleId);
    expect(second).toHaveLength(2);
    expect(second[0].link).toBe(`https://crawl.example.com/tasks/${again}`);
    gate.open();
    expect(await waitTask(m, again, ['finished', 'error'], 60_000)).toMatchObject({ status: 'finished' });
    expect(chat.inbox.of('webhook')).toHaveLength(2);
  }, 180_000);
});

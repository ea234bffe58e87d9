/**
 * Webhook deliveries end to end with real nodes and restarts: a node's offline transition is announced once
 * (a killed node: one node_offline delivery; a socket blip that reconnects in time: none), and a delivery waiting
 * in backoff survives a master restart and then arrives exactly once. On PostgreSQL a second master shares the
 * store throughout, so both claims (the offline transition and the stored delivery) are contended.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventBus, EventMap, EventName } from '../src/events.ts';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';
import { waitFor, waitNodes } from './tasks.helpers.ts';

// A short offline window so a dead node is noticed quickly; a backoff long enough to restart a master within it.
process.env.CRAWLDECK_NODE_OFFLINE_SECONDS = '3';
process.env.CRAWLDECK_NODE_HEARTBEAT_SECONDS = '0.5';
process.env.CRAWLDECK_WEBHOOK_BACKOFF_MS = '2000';
process.env.CRAWLDECK_WEBHOOK_TIMEOUT_MS = '2000';

interface Hit {
  path: string;
  delivery: string;
  status: number;
}

/** A local receiver recording every request; answers `status(path)` (default 200). */
function receiver() {
  const hits: Hit[] = [];
  const statusFor = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      const status = statusFor.get(path) ?? 200;
      hits.push({ path, delivery: String(req.headers['x-crawldeck-delivery']), status });
      res.statusCode = status;
      res.end('thanks');
    });
  });
  return {
    hits,
    statusFor,
    async start() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** The next event of that name matching `match`: subscribe before causing it. */
function nextEvent<K extends EventName>(
  bus: EventBus,
  name: K,
  match: (p: EventMap[K]) => boolean,
  timeoutMs = 30_000,
): Promise<EventMap[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      bus.off(name, on);
      reject(new Error(`no ${name} event in time`));
    }, timeoutMs);
    const on = (p: EventMap[K]) => {
      if (!match(p)) return;
      clearTimeout(timer);
      bus.off(name, on);
      resolve(p);
    };
    bus.on(name, on);
  });
}

let m: TestMaster;
let peer: TestMaster | undefined;
let node: ChildNode;
let nodeId = '';
const rx = receiver();
let base = '';

const outboxEmpty = async () => !(await m.master.store.db.selectFrom('outbox').select('id').executeTakeFirst());

beforeAll(async () => {
  base = await rx.start();
  m = await startTestMaster({ embeddedNode: false, nodeKey: 'test-node-key' });
  node = spawnNode(m.url, 'test-node-key', 'w1');
  await waitNodes(m, 1, 30_000);
  // Started once the node is known, the peer keeps its own offline timer for it (it holds no connection).
  if (ENGINE === 'postgres') peer = await m.startPeer();
  nodeId = (await m.master.store.db.selectFrom('nodes').select('id').executeTakeFirstOrThrow()).id;
  await m.api('PUT', '/webhooks', { body: { url: `${base}/offline`, events: ['node_offline'] } });
});
afterAll(async () => {
  node?.proc.kill('SIGKILL');
  await m?.close();
  await rx.close();
});

describe('node_offline once per offline transition', () => {
  it('a socket blip that reconnects within the offline window announces nothing', async () => {
    const { events } = m.master.ctx;
    const runtime = m.master.ctx.execution;
    const announced: string[] = [];
    const onOffline = (e: { nodeId: string }) => announced.push(e.nodeId);
    events.on('node.offline', onOffline);
    peer?.master.ctx.events.on('node.offline', onOffline);
    try {
      const disconnected = nextEvent(events, 'node.status', (e) => e.nodeId === nodeId && e.status === 'offline');
      const back = nextEvent(events, 'node.status', (e) => e.nodeId === nodeId && e.status === 'online');
      const blipAt = Date.now();
      runtime.sessions.get(nodeId)!.socket.terminate();
      await disconnected;
      await back;
      // Heartbeats beyond the whole window counted from the blip: a timer armed before it would have fired by now.
      const after = blipAt + runtime.offlineMs;
      await nextEvent(events, 'node.heartbeat', (e) => e.nodeId === nodeId && e.ts > after);
      await nextEvent(events, 'node.heartbeat', (e) => e.nodeId === nodeId && e.ts > after);
      expect(announced).toEqual([]);
      expect(rx.hits.filter((h) => h.path === '/offline')).toEqual([]);
      expect(await outboxEmpty()).toBe(true);
      const row = await m.master.store.db
        .selectFrom('nodes')
        .select(['status', 'offline_ts'])
        .where('id', '=', nodeId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'online', offline_ts: null });
    } finally {
      events.off('node.offline', onOffline);
      peer?.master.ctx.events.off('node.offline', onOffline);
    }
  });

  it('a killed node is announced once: one node_offline delivery', async () => {
    const announced: string[] = [];
    const onOffline = (e: { nodeId: string }) => announced.push(e.nodeId);
    // Offline statuses per master: the one holding the connection reports the disconnect at once; every master
    // reports the end of its offline window (claimed or not).
    const statuses = new Map<EventBus, number>();
    const count = (bus: EventBus) => (e: { nodeId: string; status: string }) => {
      if (e.nodeId === nodeId && e.status === 'offline') statuses.set(bus, (statuses.get(bus) ?? 0) + 1);
    };
    const masters = [m.master.ctx.events, ...(peer ? [peer.master.ctx.events] : [])];
    const counters = masters.map((bus) => [bus, count(bus)] as const);
    for (const [bus, fn] of counters) {
      bus.on('node.offline', onOffline);
      bus.on('node.status', fn);
    }
    try {
      node.proc.kill('SIGKILL');
      await waitFor('node_offline delivery', async () => rx.hits.some((h) => h.path === '/offline'), 30_000);
      await waitFor('outbox drained', outboxEmpty, 10_000);
      await waitFor(
        'every offline window ended',
        async () => {
          const timersDone = [m, ...(peer ? [peer] : [])].every((x) => !x.master.ctx.execution.offlinePending(nodeId));
          // The peer holds no connection: its one offline status is the end of its window.
          return timersDone && (statuses.get(masters[0]) ?? 0) >= 1 && (!peer || (statuses.get(masters[1]) ?? 0) >= 1);
        },
        30_000,
      );
      const row = await m.master.store.db
        .selectFrom('nodes')
        .select(['status', 'offline_ts'])
        .where('id', '=', nodeId)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('offline');
      expect(row.offline_ts).not.toBeNull();
      expect(announced).toEqual([nodeId]);
      expect(rx.hits.filter((h) => h.path === '/offline')).toHaveLength(1);
      const log = await m.api('GET', `/webhooks/${await hookId('/offline')}/deliveries`);
      expect(log.body.total).toBe(1);
      expect(log.body.data[0]).toMatchObject({ event: 'node_offline', ok: true, attempt: 1 });
    } finally {
      for (const [bus, fn] of counters) {
        bus.off('node.offline', onOffline);
        bus.off('node.status', fn);
      }
    }
  });
});

async function hookId(path: string): Promise<string> {
  const list = await m.api('GET', '/webhooks');
  return (list.body.data as { _id: string; url: string }[]).find((h) => h.url === `${base}${path}`)!._id;
}

describe('stored deliveries', () => {
  it('a retry waiting in backoff survives a master restart and then arrives exactly once', async () => {
    rx.statusFor.set('/later', 500);
    const hook = await m.api('PUT', '/webhooks', { body: { url: `${base}/later`, events: ['node_offline'] } });
    const { db } = m.master.store;
    m.master.ctx.events.emit('node.offline', { nodeId });
    // The first attempt failed and the second waits in the store.
    const waiting = await waitFor('attempt 2 stored', async () =>
      db
        .selectFrom('outbox')
        .selectAll()
        .where('target_id', '=', hook.body.data._id)
        .where('attempt', '=', 2)
        .where('lease_ts', 'is', null)
        .executeTakeFirst(),
    );
    expect(waiting.due_ts).toBeGreaterThan(Date.now());
    await m.restart();
    rx.statusFor.delete('/later');
    await waitFor('outbox drained', outboxEmpty, 30_000);
    const hits = rx.hits.filter((h) => h.path === '/later');
    expect(hits.filter((h) => h.status === 200)).toHaveLength(1);
    expect(new Set(hits.map((h) => h.delivery))).toEqual(new Set([waiting.id]));
    const log = await m.api('GET', `/webhooks/${hook.body.data._id}/deliveries`, { query: { page_size: 50 } });
    expect(log.body.total).toBe(hits.length);
    expect(log.body.data[0]).toMatchObject({ ok: true, attempt: hits.length, delivery_id: waiting.id });
    expect((await m.api('GET', `/webhooks/${hook.body.data._id}`)).body.data.last_status).toBe('success');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { waitFor } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { nodeListFor } from '../src/features/nodes/node-list.ts';
import { deleteNode, updateNode } from '../src/features/nodes/nodes.store.ts';
import {
  insertMetrics,
  saveLatestMetrics,
  touchLastSeen,
  WRITE_CHUNK,
} from '../src/features/execution/node-state.store.ts';

// The node list kept in memory follows what other masters write to the shared store (edits, new and deleted
// nodes, their nodes' last heard and metrics), and big batches of node writes and reads go in chunks that let
// other work run between them.
let m: TestMaster;
const KEY = 'list-key';
const sims: SimNode[] = [];
const FLEET = WRITE_CHUNK * 2 + 234;
const METRICS = { cpu: 1, mem: 1, disk: 1, mem_total: 1 << 30, disk_total: 1 << 34, running: 0 };

type Row = { _id: string; name: string; description: string; metrics: { cpu: number } | null; last_seen_ts: string };

beforeAll(async () => {
  // A short flush: the list looks at the store for other masters' writes every 200 ms.
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, nodeHeartbeatMs: 200, nodeOfflineMs: 600_000 });
  for (let i = 0; i < 3; i++) sims.push(new SimNode({ master: m.url, key: KEY, name: `listed-${i}` }));
  await Promise.all(sims.map((s) => s.connect()));
  await waitFor('every node listed', async () => (await m.api('GET', '/nodes')).body.total === sims.length);
});
afterAll(async () => {
  for (const s of sims) s.close();
  await m?.close();
});

const db = () => m.master.store.db;
const list = () => nodeListFor(m.master.ctx, m.master.ctx.execution);
const nodes = async (query: Record<string, unknown> = {}) =>
  (await m.api('GET', '/nodes', { query })).body as { data: Row[]; total: number };

/** A node as another master registers it: a row in the shared store this master holds no session of. */
async function storeNode(id: string, name: string, createTs: number): Promise<void> {
  await db()
    .insertInto('nodes')
    .values({
      id,
      name,
      description: '',
      type: 'worker',
      status: 'online',
      enabled: 1,
      max_runners: 4,
      running: 0,
      ip: '10.0.0.1',
      system_info: JSON.stringify({ os: 'linux', arch: 'x64', num_cpu: 2, hostname: name, executables: [] }),
      metrics: 'null',
      last_seen_ts: createTs,
      create_ts: createTs,
      update_ts: createTs,
    })
    .execute();
}

describe('the node list and other masters', () => {
  it('shows another master’s edit without reading every row again', async () => {
    await nodes();
    const reads = list().reads;
    await updateNode(db(), sims[1].nodeId, { description: 'edited elsewhere' });
    await waitFor('the edit listed', async () =>
      (await nodes()).data.some((n) => n._id === sims[1].nodeId && n.description === 'edited elsewhere'),
    );
    expect(list().reads - reads).toBe(0);
    expect(list().rowsChanged).toBeGreaterThanOrEqual(1);
  });

  it('lists a node another master registered, with its last heard and metrics as that master stores them', async () => {
    const id = 'e1' + '0'.repeat(22);
    await storeNode(id, 'held-elsewhere', Date.now());
    await waitFor('the new node listed', async () => (await nodes()).data.some((n) => n._id === id));
    const reads = list().reads;
    const seen = Date.now() + 5_000;
    await touchLastSeen(db(), [id], seen);
    await saveLatestMetrics(db(), [{ nodeId: id, metrics: JSON.stringify({ ...METRICS, cpu: 42 }), running: 0 }]);
    const row = (await nodes({ keyword: 'held-elsewhere', page_num: 1, page_size: 5 })).data[0];
    expect(row.metrics?.cpu).toBe(42);
    expect(Date.parse(row.last_seen_ts)).toBe(seen);
    expect(list().reads - reads).toBe(0);
  });

  it('reads nodes that join in the background, so the next request waits for no read', async () => {
    await nodes();
    const joining = Array.from({ length: 5 }, (_, i) => new SimNode({ master: m.url, key: KEY, name: `joining-${i}` }));
    sims.push(...joining);
    const reads = list().reads;
    await Promise.all(joining.map((s) => s.connect()));
    // No request meanwhile: the list reads the new rows by itself.
    await waitFor('the joining nodes read', async () => list().reads > reads && !list().behind());
    const readsBefore = list().reads;
    const listed = await nodes({ keyword: 'joining-' });
    expect(listed.total).toBe(joining.length);
    expect(list().reads).toBe(readsBefore);
  });

  it('drops a node another master deleted', async () => {
    const id = 'e2' + '0'.repeat(22);
    await storeNode(id, 'deleted-elsewhere', Date.now());
    await waitFor('listed', async () => (await nodes()).data.some((n) => n._id === id));
    await deleteNode(db(), id);
    await waitFor('gone from the list', async () => !(await nodes()).data.some((n) => n._id === id));
  });
});

describe('fleet-sized batches', () => {
  it('writes every node of a batch in chunks, letting other work run between them', async () => {
    const base = Date.now() - 3_600_000;
    const ids = Array.from({ length: FLEET }, (_, i) => 'zz' + i.toString(16).padStart(22, '0'));
    // Several nodes share a creation time: the chunked read must neither skip nor repeat any of them.
    for (let i = 0; i < FLEET; i += 200)
      await db()
        .insertInto('nodes')
        .values(
          ids.slice(i, i + 200).map((id, k) => ({
            id,
            name: `bulk-${i + k}`,
            description: '',
            type: 'worker',
            status: 'offline',
            enabled: 1,
            max_runners: 4,
            running: 0,
            ip: '',
            system_info: 'null',
            metrics: 'null',
            last_seen_ts: base,
            create_ts: base + Math.floor((i + k) / 7),
            update_ts: base,
          })),
        )
        .execute();

    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const ts = Date.now();
    await touchLastSeen(db(), ids, ts);
    counting = false;
    // Three chunks: other work ran at least between them.
    expect(turns).toBeGreaterThanOrEqual(2);

    await saveLatestMetrics(
      db(),
      ids.map((nodeId, i) => ({
        nodeId,
        metrics: JSON.stringify({ ...METRICS, cpu: i % 100 }),
        running: 1,
      })),
    );
    await insertMetrics(
      db(),
      ids.map((node_id, i) => ({ node_id, ts: base, cpu: i % 100, mem: 1, disk: 1, running: 0 })),
    );
    const stored = await db()
      .selectFrom('nodes')
      .select(['id', 'last_seen_ts', 'running', 'metrics'])
      .where('id', 'like', 'zz%')
      .execute();
    expect(stored).toHaveLength(FLEET);
    expect(stored.every((r) => Number(r.last_seen_ts) === ts && r.running === 1)).toBe(true);
    const metricsRows = await db()
      .selectFrom('node_metrics')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('ts', '=', base)
      .executeTakeFirstOrThrow();
    expect(Number(metricsRows.n)).toBe(FLEET);

    // A full read (new nodes) brings every node, in the list's order, each once.
    const all = await waitFor('every bulk node listed', async () => {
      const r = await nodes();
      return r.data.filter((n) => n.name.startsWith('bulk-')).length === FLEET ? r : undefined;
    });
    const order = await db()
      .selectFrom('nodes')
      .select('id')
      .orderBy('type')
      .orderBy('create_ts')
      .orderBy('id')
      .execute();
    expect(all.data.map((n) => n._id)).toEqual(order.map((r) => r.id));
    expect(new Set(all.data.map((n) => n._id)).size).toBe(all.total);
  });
});

const pgOnly = ENGINE === 'postgres' ? describe : describe.skip;

pgOnly('two masters on one PostgreSQL store', () => {
  it('lists a node held by the other master with the metrics that master stores', async () => {
    const peer = await m.startPeer({ embeddedNode: false, nodeKey: KEY, nodeHeartbeatMs: 200, nodeOfflineMs: 600_000 });
    const far = new SimNode({ master: peer.url, key: KEY, name: 'on-the-peer' });
    try {
      await far.connect();
      await waitFor('the peer’s node listed here', async () => (await nodes()).data.some((n) => n._id === far.nodeId));
      far.heartbeat({ cpu: 77 });
      const peerRt = peer.master.ctx.execution;
      await waitFor('the beat at the peer', async () => peerRt.liveSession(far.nodeId)?.metrics?.cpu === 77);
      // The peer stores its nodes' latest metrics once a minute; a flush of everything stores them now (asked again
      // while a periodic flush, which may not store them, is the one running).
      await waitFor('the peer’s metrics listed here', async () => {
        await peerRt.heartbeats.flush(Date.now(), true);
        return (await nodes({ keyword: 'on-the-peer' })).data.some((n) => n.metrics?.cpu === 77);
      });
    } finally {
      far.close();
      await peer.close();
    }
  });
});

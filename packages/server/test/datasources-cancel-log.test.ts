import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitTask } from './tasks.helpers.ts';
import { startMariaDbServer, type MariaDbServer } from './support/mariadb-server.ts';

// A task cancelled while its results database does not answer gives up its items not stored yet, and says so, but
// every line of its log still reaches the master's store, once each. Its log is large (several batches) and the
// master holds the first batches until the items are given up, so the node still has lines to ship at that moment.
const MARIADB_PORTS: [number, number] = [44150, 44199];
const LINES = 2000;
const ITEMS = 50;
const WRITE_MS = 2000;

const SPIDER = String.raw`
import json, os, sys, time
pad = 'x' * 2000
for i in range(${LINES}):
    print('line %05d %s' % (i, pad))
sys.stdout.flush()
with open(os.environ['CRAWLDECK_ITEMS'], 'a') as f:
    for i in range(${ITEMS}):
        f.write(json.dumps({'n': i}) + '\n')
while True:
    time.sleep(1)
`;

let m: TestMaster;
let server: MariaDbServer;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true, dataSourceWriteMs: WRITE_MS });
  server = await startMariaDbServer(...MARIADB_PORTS);
}, 120_000);
afterAll(async () => {
  server?.thaw();
  await server?.destroy();
  await m?.close();
});

describe('a task cancelled while its results database does not answer', () => {
  it('stores every log line once and says its items were given up', async () => {
    const ds = await m.api('PUT', '/data-sources', {
      body: {
        name: 'silent',
        type: 'mysql',
        host: '127.0.0.1',
        port: server.port,
        database: 'mysql',
        username: 'root',
      },
    });
    expect(ds.status, ds.body.error).toBe(200);
    const spider = await makeSpider(m, 'cancel-log', '/usr/bin/python3 gen.py', { 'gen.py': SPIDER });
    const linked = await m.api('POST', `/spiders/${spider}/data-source`, {
      body: { data_source_id: ds.body.data._id, result_table: 'cancel_log_items' },
    });
    expect(linked.status, linked.body.error).toBe(200);

    // The master holds the task's log batches (the node's window fills) until the items are given up.
    const order = m.master.ctx.execution.ingestOrder;
    const inOrder = order.inOrder.bind(order);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let heldBatches = 0;
    order.inOrder = async (stream, from, store) => {
      if (stream.endsWith(':logs')) {
        heldBatches++;
        await held;
      }
      return inOrder(stream, from, store);
    };

    server.freeze();
    const [task] = await runSpider(m, spider);
    const spoolLog = path.join(m.dataDir, 'node', 'tasks', task, 'log.txt');
    const written = () => readFileSync(spoolLog, 'utf8').match(/^line \d{5} /gm)?.length ?? 0;
    await waitFor('every line in the node spool', async () => existsSync(spoolLog) && written() === LINES, 120_000);
    const stalled = await waitFor('the stall on the task', async () => {
      const t = (await m.api('GET', `/tasks/${task}`)).body.data;
      return t.error ? t : undefined;
    });
    expect(stalled.error).toContain('data source "silent"');
    expect(heldBatches).toBeGreaterThan(0);

    expect((await m.api('POST', `/tasks/${task}/cancel`)).status).toBe(200);
    await waitFor('the items given up', async () => {
      const t = (await m.api('GET', `/tasks/${task}`)).body.data;
      return String(t.error).includes('given up');
    });
    release();
    order.inOrder = inOrder;

    // The node ships the rest of the log, reports the end and forgets the task.
    await waitFor('the node forgets the task', async () => !existsSync(path.dirname(spoolLog)), 60_000);
    const done = await waitTask(m, task, ['cancelled']);
    expect(done.error).toContain('data source "silent"');
    expect(done.error).toContain('the task was cancelled, so its items not stored yet are given up');
    expect(done.result_count).toBe(0);
    const ours = (await allLog(m, task)).map((l) => l.msg).filter((msg) => /^line \d{5} /.test(msg));
    const numbers = ours.map((msg) => Number(msg.slice(5, 10)));
    expect(new Set(numbers).size, 'no line stored twice').toBe(ours.length);
    expect(ours.length, 'every line the process wrote is stored').toBe(LINES);
    console.log(`cancelled with its results database frozen: ${ours.length} of ${LINES} log lines stored, 0 twice`);
  }, 240_000);
});

import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { generatorSpider } from './datasources.helpers.ts';
import { gatePath, runSpider, waitFor, waitTask } from './tasks.helpers.ts';
import { startMariaDbServer, type MariaDbServer } from './support/mariadb-server.ts';

// A results database that stops answering (its process frozen: connections open, no reply) in the middle of a task:
// within the write deadline the task says so, and a Cancel ends it, frees its node's slot and stops the node
// sending its items again.
const MARIADB_PORTS: [number, number] = [44100, 44149];
const N = 400;
const GATE_AT = 100;
const WRITE_MS = 2000;

let m: TestMaster;
let server: MariaDbServer;
const gate = gatePath('ds-stall');

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true, dataSourceWriteMs: WRITE_MS });
  server = await startMariaDbServer(...MARIADB_PORTS);
}, 120_000);
afterAll(async () => {
  await server?.destroy();
  await m?.close();
  rmSync(gate, { force: true });
});

describe('a results database that stops answering', () => {
  it('shows the stall on the task; Cancel ends it, frees the slot and stops the node sending items', async () => {
    const ds = await m.api('PUT', '/data-sources', {
      body: {
        name: 'frozen',
        type: 'mysql',
        host: '127.0.0.1',
        port: server.port,
        database: 'mysql',
        username: 'root',
      },
    });
    expect(ds.status).toBe(200);
    const spider = await generatorSpider(m, 'stalled', ds.body.data._id, {}, 'stall_items');
    const [task] = await runSpider(m, spider, { param: `${N} mixed ${gate} ${GATE_AT}` });
    await waitFor('the items before the gate', async () => {
      const t = (await m.api('GET', `/tasks/${task}`)).body.data;
      return t.result_count === GATE_AT;
    });

    // Item batches of this task that reach the master, counted as they arrive.
    const order = m.master.ctx.execution.ingestOrder;
    const arrived = order.arrived.bind(order);
    let batches = 0;
    order.arrived = (stream: string) => {
      if (stream === `${task}:items`) batches++;
      arrived(stream);
    };

    server.freeze();
    writeFileSync(gate, '', { mode: 0o644 });
    const stalled = await waitFor('the stall on the task', async () => {
      const t = (await m.api('GET', `/tasks/${task}`)).body.data;
      return t.error ? t : undefined;
    });
    expect(stalled.status).toBe('running');
    expect(stalled.error).toContain('data source "frozen"');
    expect(stalled.error).toContain(`did not answer within ${WRITE_MS / 1000} s`);
    expect(stalled.result_count).toBe(GATE_AT);

    const nodeId = stalled.node_id as string;
    const spool = path.join(m.dataDir, 'node', 'tasks', task);
    expect(existsSync(spool)).toBe(true);
    expect((await m.api('POST', `/tasks/${task}/cancel`)).status).toBe(200);
    // The node gives the task up (its spool and shippers are gone) and the master frees its slot.
    await waitFor('the node forgets the task', async () => !existsSync(spool), 30_000);
    await waitFor('the slot free', async () => m.master.ctx.execution.liveSession(nodeId)?.active.size === 0);
    const done = (await m.api('GET', `/tasks/${task}`)).body.data;
    expect(done.status).toBe('cancelled');
    expect(done.error).toContain('cancelled, so its items not stored yet are given up');
    const sent = batches;
    expect(sent).toBeGreaterThan(0);

    // The database answers again and another task writes through it: the cancelled task sent nothing more.
    server.thaw();
    const [next] = await runSpider(m, spider, { param: '50 mixed' });
    expect(await waitTask(m, next, ['finished', 'error'], 60_000)).toMatchObject({
      status: 'finished',
      result_count: 50,
    });
    expect(batches).toBe(sent);
    console.log(
      `frozen results database: ${sent} item batches of the task while stalled, none once the node gave it up`,
    );
  }, 120_000);
});

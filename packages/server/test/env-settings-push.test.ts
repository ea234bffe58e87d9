/**
 * A new package index reaches the task started right after it is saved. The node is busy with an install from the
 * old index (held open by a loopback index that never finishes its answer), so it cannot take the nudge to fetch
 * the new settings; the task's assignment names the save current when it was sent, and the node reads that save
 * before building the task's environment: pip installs from the new index, never from the replaced one.
 */
import { once } from 'node:events';
import { EventEmitter } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';
import { startPackageIndexes, type PackageIndexes } from './support/package-index.ts';

/**
 * The old index: it answers a request for `slowpkg` with a page that never ends (a space every second keeps pip
 * waiting), anything else with 404 at once.
 */
interface HeldIndex {
  url: string;
  seen: string[];
  events: EventEmitter;
  close(): Promise<void>;
}

async function startHeldIndex(): Promise<HeldIndex> {
  const seen: string[] = [];
  const events = new EventEmitter();
  const open = new Set<{ res: ServerResponse; timer: NodeJS.Timeout }>();
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (!req.url?.includes('slowpkg')) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<html><body>');
    const held = { res, timer: setInterval(() => res.write(' '), 1000) };
    open.add(held);
    events.emit('request', req.url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple/`,
    seen,
    events,
    async close() {
      for (const h of open) {
        clearInterval(h.timer);
        h.res.destroy();
      }
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

let m: TestMaster;
let indexes: PackageIndexes;
let held: HeldIndex;

beforeAll(async () => {
  indexes = await startPackageIndexes({
    pip: { name: 'cdtiny', module: 'cdtiny', versions: ['1.0'] },
    npm: { name: 'cdtiny-js', versions: ['1.0.0'] },
  });
  held = await startHeldIndex();
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1, 60_000);
}, 120_000);

afterAll(async () => {
  await held?.close();
  await m?.close();
  await indexes?.close();
});

const settings = (pip: string) => ({ body: { pip_index_url: pip, pip_extra_index_url: '', npm_registry: '' } });

describe('package index settings reach the node before its next task', () => {
  it('builds a task started at once after saving a new index from that index, while the node is busy', async () => {
    const [node] = (await m.api('GET', '/nodes')).body.data as { _id: string }[];
    expect((await m.api('POST', '/env-settings', settings(held.url))).status).toBe(200);
    // An install from the old index, which holds it open: the node's environment jobs are busy until it ends.
    const asked = once(held.events, 'request');
    const job = await m.api('POST', '/env-jobs', {
      body: { target: 'pip', action: 'install', name: 'slowpkg', node_ids: [node._id] },
    });
    expect(job.status, job.body.error).toBe(200);
    await asked;

    const saved = await m.api('POST', '/env-settings', settings(indexes.pipIndex));
    expect(saved.status, saved.body.error).toBe(200);
    const spider = await makeSpider(m, 'index-push-spider', 'python main.py', {
      'main.py': 'import cdtiny\nprint("cdtiny", cdtiny.VERSION)\n',
      'requirements.txt': 'cdtiny==1.0\n',
    });
    const [taskId] = await runSpider(m, spider);
    const t = await waitTask(m, taskId, ['finished', 'error'], 400_000);
    const lines = (await allLog(m, taskId)).map((l) => l.msg).join('\n');
    expect(t.status, lines).toBe('finished');
    expect(lines).toContain('cdtiny 1.0');
    expect(lines).toContain(`--index-url ${indexes.pipIndex}`);
    // The replaced index was asked for the install job's package only, never for the task's.
    expect(
      held.seen.every((u) => u.includes('slowpkg')),
      held.seen.join(', '),
    ).toBe(true);
  }, 500_000);
});

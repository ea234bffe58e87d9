/**
 * Node names are unique: a node joining under a name another node has gets the first free `name-2`, `name-3`…, a
 * node that comes back keeps its own, a rename to a taken name is refused, and the CLI never picks one of two
 * nodes that (having joined before names were unique) share a name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNode, type RunningNode } from '@crawldeck/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateNode } from '../src/features/nodes/nodes.store.ts';
import { upsertRegisteredNode } from '../src/features/execution/node-state.store.ts';
import { runCli } from '../../cli/test/cli.helpers.ts';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { SimNode } from './support/sim-node.ts';
import { makeSpider, waitFor } from './tasks.helpers.ts';

const KEY = 'node-names-key';
/** What a registering node says of its host (the name test needs none of it). */
const SYSTEM = { os: 'Linux', arch: 'x64', num_cpu: 1, hostname: 'h', executables: [], python: 'python3' };
let m: TestMaster;
let root: string;
const running: RunningNode[] = [];

beforeAll(async () => {
  m = await startTestMaster({ nodeKey: KEY });
  root = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-node-names-'));
}, 60_000);

afterAll(async () => {
  for (const n of running) await n.stop();
  await m?.close();
  rmSync(root, { recursive: true, force: true });
});

async function join(dataDir: string, name: string): Promise<RunningNode> {
  const node = await startNode({ master: m.url, key: KEY, dataDir: path.join(root, dataDir), name, log: () => {} });
  running.push(node);
  return node;
}

/** The stored name of this node once it is online. */
function onlineName(nodeId: string): Promise<string> {
  return waitFor(`node ${nodeId} online`, async () => {
    const nodes = (await m.api('GET', '/nodes')).body.data as { _id: string; name: string; status: string }[];
    return nodes.find((n) => n._id === nodeId && n.status === 'online')?.name;
  });
}

describe('node names', () => {
  let first: RunningNode;
  let second: RunningNode;

  it('a node joining under a taken name gets the first free numbered one', async () => {
    first = await join('a', 'twin');
    expect(await onlineName(first.nodeId)).toBe('twin');
    second = await join('b', 'twin');
    expect(await onlineName(second.nodeId)).toBe('twin-2');
    const third = await join('c', 'twin');
    expect(await onlineName(third.nodeId)).toBe('twin-3');
    // A name that only looks like a pattern is taken literally.
    const odd = await join('d', 'tw_n');
    expect(await onlineName(odd.nodeId)).toBe('tw_n');
  }, 60_000);

  it('nodes joining at once under one name all get names of their own', async () => {
    const sims = Array.from({ length: 6 }, () => new SimNode({ master: m.url, key: KEY, name: 'pair' }));
    try {
      await Promise.all(sims.map((n) => n.connect()));
      const names = await Promise.all(sims.map((n) => onlineName(n.nodeId)));
      expect(names.sort()).toEqual(['pair', 'pair-2', 'pair-3', 'pair-4', 'pair-5', 'pair-6']);
    } finally {
      for (const n of sims) n.close();
    }
  }, 60_000);

  it.runIf(ENGINE === 'postgres')(
    'nodes registering on two masters at once under one name all get names of their own',
    async () => {
      const peer = await m.startPeer();
      try {
        const register = (db: typeof m.master.store.db, i: number) =>
          upsertRegisteredNode(
            db,
            {
              nodeId: `both-${i}`,
              name: 'both',
              nodeType: 'worker',
              maxRunners: 1,
              systemInfo: SYSTEM,
              ip: '127.0.0.1',
            },
            Date.now(),
            'postgres',
          );
        const rows = await Promise.all(
          Array.from({ length: 16 }, (_, i) => register(i % 2 ? peer.master.store.db : m.master.store.db, i)),
        );
        const names = rows.map((r) => r.name);
        expect(new Set(names).size).toBe(16);
        expect(names).toContain('both');
        expect(names).toContain('both-16');
      } finally {
        await m.master.store.db.deleteFrom('nodes').where('id', 'like', 'both-%').execute();
        await peer.close();
      }
    },
    60_000,
  );

  it('a node that comes back keeps its name', async () => {
    await first.stop();
    running.splice(running.indexOf(first), 1);
    const again = await join('a', 'twin');
    expect(again.nodeId).toBe(first.nodeId);
    expect(await onlineName(again.nodeId)).toBe('twin');
  }, 60_000);

  it('refuses to rename a node to the name of another', async () => {
    const taken = await m.api('POST', `/nodes/${second.nodeId}`, { body: { name: 'twin' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatch(/another node is named "twin"/);
    const own = await m.api('POST', `/nodes/${second.nodeId}`, { body: { name: 'twin-2', description: 'kept' } });
    expect(own.status).toBe(200);
    const renamed = await m.api('POST', `/nodes/${second.nodeId}`, { body: { name: 'solo' } });
    expect(renamed.body.data.name).toBe('solo');
  });

  it('the CLI names the nodes that share a name instead of picking one', async () => {
    // Two nodes that joined before names were unique.
    await updateNode(m.master.ctx.store.db, second.nodeId, { name: 'twin' });
    // An edit through the API has the master read its node list again.
    expect((await m.api('POST', `/nodes/${second.nodeId}`, { body: { description: 'old twin' } })).status).toBe(200);
    expect(await onlineName(second.nodeId)).toBe('twin');
    await makeSpider(m, 'names-spider', 'python3 -c "print(1)"');
    const env = { CRAWLDECK_URL: m.url, CRAWLDECK_TOKEN: m.adminToken };
    const r = await runCli(root, ['run', 'names-spider', '--node', 'twin'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/several nodes are named "twin": choose one by id/);
    expect(r.stderr).toContain(second.nodeId);
    const tasks = (await m.api('GET', '/tasks')).body.data as unknown[];
    expect(tasks).toEqual([]);
  }, 60_000);
});

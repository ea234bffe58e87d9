/**
 * Node environments on real tools: pip and npm install, list, upgrade and uninstall packages from indexes served on
 * loopback, on the master's own node and on a joined worker; per-spider environments are built once, reused and
 * rebuilt when requirements.txt changes; a failing install keeps the tool's own words.
 */
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';
import { startPackageIndexes, type PackageIndexes } from './support/package-index.ts';

const KEY = 'env-test-node-key';
let m: TestMaster;
let worker: ChildNode;
let indexes: PackageIndexes;
let masterNode = '';
let workerNode = '';
let normal = '';

/** Where a node keeps its environments: its work dir, named after its data dir (packages/node defaults). */
const workDirOf = (dataDir: string) =>
  path.join(os.tmpdir(), `crawldeck-work-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);

/**
 * Kills a node and removes its work directory. A pip the node started (an install, a list of what is installed)
 * outlives a kill -9 of the node for a moment and may still write its bytecode caches there: the removal retries.
 */
async function stopNode(node: ChildNode | undefined, dataDir: string): Promise<void> {
  if (node && node.proc.exitCode === null && node.proc.signalCode === null) {
    node.proc.kill('SIGKILL');
    await once(node.proc, 'exit');
  }
  // A tool the node started (pip checking its venv) may outlive the killed node a moment and still write there.
  await waitFor(
    'the node work folder removed',
    async () => {
      try {
        rmSync(workDirOf(dataDir), { recursive: true, force: true });
        return true;
      } catch {
        return false;
      }
    },
    120_000,
    200,
  );
}

type Job = { _id: string; status: string; error: string; log: string; node_id: string };
type Pkg = { name: string; version: string; state: string; all_nodes: boolean };

async function startJobs(body: Record<string, unknown>): Promise<Job[]> {
  const r = await m.api('POST', '/env-jobs', { body });
  expect(r.status, r.body.error).toBe(200);
  return r.body.data;
}

/** Waits for the jobs to end; generous, since a first pip job also creates the node's virtualenv on a busy machine. */
async function finished(jobs: Job[], timeoutMs = 400_000): Promise<Job[]> {
  return Promise.all(
    jobs.map((j) =>
      waitFor(
        `job ${j._id}`,
        async () => {
          const r = await m.api('GET', `/env-jobs/${j._id}`);
          return ['done', 'failed'].includes(r.body.data.status) ? (r.body.data as Job) : undefined;
        },
        timeoutMs,
        200,
      ),
    ),
  );
}

async function packages(nodeId: string, target: 'pip' | 'npm'): Promise<Pkg[]> {
  const r = await m.api('GET', `/nodes/${nodeId}/environment`);
  expect(r.status).toBe(200);
  return r.body.data[target];
}

async function packageOn(nodeId: string, target: 'pip' | 'npm', name: string): Promise<Pkg | undefined> {
  return (await packages(nodeId, target)).find((p) => p.name.toLowerCase() === name);
}

beforeAll(async () => {
  indexes = await startPackageIndexes({
    pip: { name: 'cdtiny', module: 'cdtiny', versions: ['1.0', '2.0'] },
    npm: { name: 'cdtiny-js', versions: ['1.0.0', '2.0.0'] },
  });
  m = await startTestMaster({ embeddedNode: true, nodeKey: KEY });
  worker = spawnNode(m.url, KEY, 'env-worker');
  await waitNodes(m, 2, 60_000);
  const nodes = (await m.api('GET', '/nodes')).body.data as { _id: string; type: string }[];
  masterNode = nodes.find((n) => n.type === 'master')!._id;
  workerNode = nodes.find((n) => n.type === 'worker')!._id;
  normal = await m.createUser('env_normal');
  const s = await m.api('POST', '/env-settings', {
    body: { pip_index_url: indexes.pipIndex, pip_extra_index_url: '', npm_registry: indexes.npmRegistry },
  });
  expect(s.status).toBe(200);
  // Both nodes report what they have once they registered.
  for (const id of [masterNode, workerNode])
    await waitFor(
      `report of ${id}`,
      async () => (await m.api('GET', `/nodes/${id}/environment`)).body.data.reported_ts,
      60_000,
      200,
    );
}, 180_000);

afterAll(async () => {
  if (worker) await stopNode(worker, worker.dataDir);
  await m?.close();
  await indexes?.close();
  if (m) await stopNode(undefined, path.join(m.dataDir, 'node'));
});

describe('node environments', () => {
  it('lets a normal user see states but not install', async () => {
    expect((await m.api('GET', `/nodes/${workerNode}/environment`, { token: normal })).status).toBe(200);
    expect((await m.api('GET', '/env-dependencies', { token: normal })).status).toBe(200);
    const denied = await m.api('POST', '/env-jobs', {
      token: normal,
      body: { target: 'pip', action: 'install', name: 'cdtiny', all_nodes: true },
    });
    expect(denied.status).toBe(403);
    expect((await m.api('GET', '/env-jobs')).body.total).toBe(0);
    const bad = await m.api('POST', '/env-jobs', {
      body: { target: 'pip', action: 'install', name: '--index-url=http://evil', all_nodes: true },
    });
    expect(bad.status).toBe(400);
  });

  it('looks packages up in the configured indexes', async () => {
    const pip = await m.api('GET', '/env-packages/search', { query: { target: 'pip', q: 'cdtiny' } });
    expect(pip.body.data).toEqual([{ name: 'cdtiny', versions: ['1.0', '2.0'] }]);
    const npm = await m.api('GET', '/env-packages/search', { query: { target: 'npm', q: 'cdtiny-js' } });
    expect(npm.body.data[0].versions).toEqual(['1.0.0', '2.0.0']);
    expect(
      (await m.api('GET', '/env-packages/search', { query: { target: 'pip', q: 'nothing-here' } })).body.data,
    ).toEqual([]);
  });

  it('installs, upgrades and uninstalls a pip package on the master node and a worker', async () => {
    const jobs = await startJobs({ target: 'pip', action: 'install', name: 'cdtiny', version: '1.0', all_nodes: true });
    expect(jobs.map((j) => j.node_id).sort()).toEqual([masterNode, workerNode].sort());
    const ends = await finished(jobs);
    expect(
      ends.map((j) => j.status),
      ends.map((j) => j.log).join('\n'),
    ).toEqual(['done', 'done']);
    expect(ends[0].log).toMatch(/Successfully installed cdtiny-1\.0/);
    for (const id of [masterNode, workerNode])
      expect(await packageOn(id, 'pip', 'cdtiny')).toMatchObject({
        version: '1.0',
        state: 'installed',
        all_nodes: true,
      });

    await finished(await startJobs({ target: 'pip', action: 'upgrade', name: 'cdtiny', node_ids: [masterNode] }));
    expect(await packageOn(masterNode, 'pip', 'cdtiny')).toMatchObject({ version: '2.0', state: 'installed' });
    expect(await packageOn(workerNode, 'pip', 'cdtiny')).toMatchObject({ version: '1.0' });

    const deps = (await m.api('GET', '/env-dependencies')).body.data as {
      target: string;
      name: string;
      nodes: { node_id: string; version: string }[];
    }[];
    const row = deps.find((d) => d.target === 'pip' && d.name.toLowerCase() === 'cdtiny')!;
    expect(Object.fromEntries(row.nodes.map((n) => [n.node_id, n.version]))).toEqual({
      [masterNode]: '2.0',
      [workerNode]: '1.0',
    });

    const [gone] = await finished(
      await startJobs({ target: 'pip', action: 'uninstall', name: 'cdtiny', node_ids: [workerNode] }),
    );
    expect(gone.status).toBe('done');
    expect(await packageOn(workerNode, 'pip', 'cdtiny')).toMatchObject({ state: 'not-installed', version: '' });
  }, 900_000);

  it('installs what belongs on all nodes on a node that joins later', async () => {
    const late = spawnNode(m.url, KEY, 'env-late');
    try {
      const id = await waitFor(
        'the late node',
        async () => {
          const nodes = (await m.api('GET', '/nodes')).body.data as { _id: string; name: string; status: string }[];
          return nodes.find((n) => n.name === 'env-late' && n.status === 'online')?._id;
        },
        60_000,
      );
      const jobs = await waitFor(
        'its job',
        async () => {
          const r = (await m.api('GET', '/env-jobs', { query: { node_id: id } })).body.data as (Job & {
            name: string;
            username: string;
          })[];
          return r.length ? r : undefined;
        },
        60_000,
        200,
      );
      expect(jobs.map((j) => [j.name, j.username])).toEqual([['cdtiny', 'all nodes']]);
      const [end] = await finished(jobs);
      expect(end.status, end.log).toBe('done');
      expect(await packageOn(id, 'pip', 'cdtiny')).toMatchObject({
        version: '1.0',
        state: 'installed',
        all_nodes: true,
      });
    } finally {
      await stopNode(late, late.dataDir);
    }
  }, 600_000);

  it('installs, upgrades and uninstalls an npm package', async () => {
    const ends = await finished(
      await startJobs({
        target: 'npm',
        action: 'install',
        name: 'cdtiny-js',
        version: '1.0.0',
        node_ids: [masterNode, workerNode],
      }),
    );
    expect(
      ends.map((j) => j.status),
      ends.map((j) => j.log).join('\n'),
    ).toEqual(['done', 'done']);
    for (const id of [masterNode, workerNode])
      expect(await packageOn(id, 'npm', 'cdtiny-js')).toMatchObject({ version: '1.0.0', state: 'installed' });
    await finished(await startJobs({ target: 'npm', action: 'upgrade', name: 'cdtiny-js', node_ids: [workerNode] }));
    expect(await packageOn(workerNode, 'npm', 'cdtiny-js')).toMatchObject({ version: '2.0.0' });
    await finished(await startJobs({ target: 'npm', action: 'uninstall', name: 'cdtiny-js', node_ids: [workerNode] }));
    expect(await packageOn(workerNode, 'npm', 'cdtiny-js')).toBeUndefined();
    expect(await packageOn(masterNode, 'npm', 'cdtiny-js')).toMatchObject({ version: '1.0.0' });
  }, 240_000);

  it('fails an install of an unknown package with the tool message', async () => {
    const [job] = await finished(
      await startJobs({ target: 'pip', action: 'install', name: 'no-such-package-xyz', node_ids: [workerNode] }),
    );
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/No matching distribution found for no-such-package-xyz/);
    expect(await packageOn(workerNode, 'pip', 'no-such-package-xyz')).toBeUndefined();
  }, 120_000);

  it('queues jobs of one node and runs them one at a time', async () => {
    const a = await startJobs({
      target: 'npm',
      action: 'install',
      name: 'cdtiny-js',
      version: '1.0.0',
      node_ids: [workerNode],
    });
    const b = await startJobs({ target: 'npm', action: 'upgrade', name: 'cdtiny-js', node_ids: [workerNode] });
    const [ja, jb] = await finished([...a, ...b]);
    expect([ja.status, jb.status]).toEqual(['done', 'done']);
    const rows = (await m.api('GET', '/env-jobs', { query: { node_id: workerNode, target: 'npm', limit: 2 } })).body
      .data as { _id: string; start_ts: string; finish_ts: string }[];
    const [later, earlier] = rows;
    expect(later._id).toBe(jb._id);
    expect(Date.parse(later.start_ts)).toBeGreaterThanOrEqual(Date.parse(earlier.finish_ts));
  }, 240_000);

  it('builds a per-spider environment once, reuses it, rebuilds it when requirements.txt changes', async () => {
    const main = 'import cdtiny, sys\nprint("cdtiny", cdtiny.VERSION, "python", sys.executable)\n';
    const id = await makeSpider(m, 'env-spider', 'python main.py', {
      'main.py': main,
      'requirements.txt': 'cdtiny==1.0\n',
    });
    const run = async () => {
      const started = Date.now();
      const [taskId] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [workerNode] });
      const t = await waitTask(m, taskId, ['finished', 'error'], 180_000);
      const log = (await allLog(m, taskId)).map((l) => l.msg).join('\n');
      expect(t.status, log).toBe('finished');
      return { log, ms: Date.now() - started };
    };
    const first = await run();
    expect(first.log).toMatch(/building the Python environment/);
    expect(first.log).toMatch(/cdtiny 1\.0 python .*spider-envs/);
    const second = await run();
    expect(second.log).toMatch(/reusing the Python environment/);
    expect(second.log).not.toMatch(/building the Python environment/);
    expect(second.log).toMatch(/cdtiny 1\.0/);
    console.log(
      `per-spider environment: first run ${first.ms} ms, reuse ${second.ms} ms, ratio ${(first.ms / second.ms).toFixed(1)}`,
    );
    await m.api('POST', `/spiders/${id}/file`, { body: { path: 'requirements.txt', content: 'cdtiny==2.0\n' } });
    const third = await run();
    expect(third.log).toMatch(/building the Python environment/);
    expect(third.log).toMatch(/cdtiny 2\.0/);
  }, 400_000);

  it('a spider whose requirements cannot be met fails with pip words in its log', async () => {
    const id = await makeSpider(m, 'env-broken', 'python main.py', {
      'main.py': 'print(1)\n',
      'requirements.txt': 'no-such-package-xyz\n',
    });
    const [taskId] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [workerNode] });
    const t = await waitTask(m, taskId, ['finished', 'error'], 120_000);
    expect(t.status).toBe('error');
    expect(t.error).toMatch(/building the spider's Python environment failed/);
    expect((await allLog(m, taskId)).map((l) => l.msg).join('\n')).toMatch(/No matching distribution found/);
  }, 180_000);
});

/**
 * A node killed (kill -9 of its whole process group) while it makes its first virtualenv: after its restart the
 * half-made venv is never used, the next install job makes it anew and succeeds, and a task imports what it
 * installed. The job the dead node held can be cancelled once the node is offline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { CLI, REPO, groupAlive } from './nodes.helpers.ts';
import { allLog, makeSpider, runSpider, waitFor, waitTask } from './tasks.helpers.ts';
import { startPackageIndexes, type PackageIndexes } from './support/package-index.ts';

const KEY = 'env-kill-node-key';
const NAME = 'env-kill-worker';
let m: TestMaster;
let indexes: PackageIndexes;
let node: ChildProcess | undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-node-env-kill-'));
const workDir = path.join(
  os.tmpdir(),
  `crawldeck-work-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`,
);
const venv = path.join(workDir, 'envs', 'python', 'default');

/** The node as a process group of its own, so a kill -9 of the group takes the venv tool it started too. */
function startNode(): ChildProcess {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'node', '--master', m.url, '--data-dir', dataDir, '--name', NAME],
    { cwd: REPO, env: { ...process.env, CRAWLDECK_NODE_KEY: KEY }, stdio: 'ignore', detached: true },
  );
  return proc;
}

function killNodeGroup(): void {
  if (!node?.pid) return;
  try {
    process.kill(-node.pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

async function onlineNode(): Promise<string> {
  return waitFor(
    'the node online',
    async () => {
      const nodes = (await m.api('GET', '/nodes')).body.data as { _id: string; name: string; status: string }[];
      return nodes.find((n) => n.name === NAME && n.status === 'online')?._id;
    },
    120_000,
    100,
  );
}

type Job = { _id: string; status: string; log: string; error: string };
async function startInstall(nodeId: string): Promise<string> {
  const r = await m.api('POST', '/env-jobs', {
    body: { target: 'pip', action: 'install', name: 'cdtiny', version: '1.0', node_ids: [nodeId] },
  });
  expect(r.status, r.body.error).toBe(200);
  return r.body.data[0]._id;
}
async function job(id: string): Promise<Job> {
  return (await m.api('GET', `/env-jobs/${id}`)).body.data;
}

beforeAll(async () => {
  indexes = await startPackageIndexes({
    pip: { name: 'cdtiny', module: 'cdtiny', versions: ['1.0'] },
    npm: { name: 'cdtiny-js', versions: ['1.0.0'] },
  });
  m = await startTestMaster({ nodeKey: KEY });
  const s = await m.api('POST', '/env-settings', {
    body: { pip_index_url: indexes.pipIndex, pip_extra_index_url: '', npm_registry: '' },
  });
  expect(s.status).toBe(200);
}, 120_000);

afterAll(async () => {
  killNodeGroup();
  await m?.close();
  await indexes?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true, maxRetries: 50, retryDelay: 100 });
});

describe('a node killed during its first virtualenv', () => {
  it('makes it anew after its restart; the next job and a task use it', async () => {
    node = startNode();
    const nodeId = await onlineNode();
    const first = await startInstall(nodeId);
    // The venv's interpreter is its first file; pip comes into it last (ensurepip): kill in between.
    await waitFor('the venv begun', async () => existsSync(path.join(venv, 'bin', 'python')) || undefined, 300_000, 5);
    const pipThere = existsSync(path.join(venv, 'lib', 'python3.11', 'site-packages', 'pip'));
    // A job its online node runs is left to its tool.
    const early = await m.api('POST', `/env-jobs/${first}/cancel`, {});
    expect(early.status).toBe(409);
    expect(early.body.error).toMatch(/the node is running this job now/);
    killNodeGroup();
    const pgid = node.pid!;
    await waitFor('the node group gone', async () => !groupAlive(pgid) || undefined, 30_000, 20);
    console.log(`killed while making the venv (pip already in it: ${pipThere})`);

    // The job the dead node held shows running until an administrator cancels it once the node is offline.
    expect((await job(first)).status).toBe('running');
    await waitFor(
      'the node offline',
      async () => {
        const nodes = (await m.api('GET', '/nodes')).body.data as { _id: string; status: string }[];
        return nodes.find((n) => n._id === nodeId)?.status !== 'online' || undefined;
      },
      120_000,
      100,
    );
    const cancelled = await m.api('POST', `/env-jobs/${first}/cancel`, {});
    expect(cancelled.status, cancelled.body.error).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      status: 'failed',
      error: 'cancelled by admin (its node is not online)',
    });
    expect((await m.api('POST', `/env-jobs/${first}/cancel`, {})).status).toBe(409);

    node = startNode();
    await onlineNode();
    // The next job makes the venv anew.
    const second = await startInstall(nodeId);
    const done = await waitFor(
      'the second job',
      async () => {
        const j = await job(second);
        return ['done', 'failed'].includes(j.status) ? j : undefined;
      },
      400_000,
      200,
    );
    expect(done.status, done.log).toBe('done');
    expect(done.log).toMatch(/Successfully installed cdtiny-1\.0/);
    expect(await job(first)).toMatchObject({ status: 'failed', error: 'cancelled by admin (its node is not online)' });

    const spider = await makeSpider(m, 'env-kill-spider', 'python main.py', {
      'main.py': 'import cdtiny, sys\nprint("cdtiny", cdtiny.VERSION, sys.prefix)\n',
    });
    const [taskId] = await runSpider(m, spider, { run_type: 'selected-nodes', node_ids: [nodeId] });
    const t = await waitTask(m, taskId, ['finished', 'error'], 120_000);
    const log = (await allLog(m, taskId)).map((l) => l.msg).join('\n');
    expect(t.status, log).toBe('finished');
    expect(log).toContain(`cdtiny 1.0 ${venv}`);
  }, 900_000);
});

/**
 * The Python a node's Installation tab shows is the one its tasks and environments run with, and its pip list is
 * what those tasks can import: on a fresh worker pip is there before any install, and a package the system Python
 * already has stays listed after an install that found it satisfied.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { waitFor, waitNodes } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';
import { startPackageIndexes, type PackageIndexes } from './support/package-index.ts';

const KEY = 'env-python-node-key';
const SYSTEM_PYTHON = '/usr/bin/python3';
let m: TestMaster;
let worker: ChildNode;
let indexes: PackageIndexes;
let pythonDir = '';
let nodeId = '';

type Pkg = { name: string; version: string; state: string; system: boolean };

const workDirOf = (dataDir: string) =>
  path.join(os.tmpdir(), `crawldeck-work-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);

async function environment(): Promise<{ languages: { key: string; path: string; version: string }[]; pip: Pkg[] }> {
  const r = await m.api('GET', `/nodes/${nodeId}/environment`);
  expect(r.status).toBe(200);
  return r.body.data;
}

beforeAll(async () => {
  indexes = await startPackageIndexes({
    pip: { name: 'cdtiny', module: 'cdtiny', versions: ['1.0'] },
    npm: { name: 'cdtiny-js', versions: ['1.0.0'] },
  });
  m = await startTestMaster({ nodeKey: KEY });
  // The node's Python under a name no PATH holds: the first python3 on PATH is another file.
  pythonDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-python-'));
  symlinkSync(SYSTEM_PYTHON, path.join(pythonDir, 'python3'));
  worker = spawnNode(m.url, KEY, 'env-python', ['--python', path.join(pythonDir, 'python3')]);
  await waitNodes(m, 1, 60_000);
  nodeId = ((await m.api('GET', '/nodes')).body.data as { _id: string }[])[0]._id;
  const s = await m.api('POST', '/env-settings', {
    body: { pip_index_url: indexes.pipIndex, pip_extra_index_url: '', npm_registry: '' },
  });
  expect(s.status).toBe(200);
  await waitFor(
    'the node reports its environment',
    async () => (await m.api('GET', `/nodes/${nodeId}/environment`)).body.data.reported_ts,
    60_000,
    200,
  );
}, 180_000);

afterAll(async () => {
  if (worker && worker.proc.exitCode === null && worker.proc.signalCode === null) {
    worker.proc.kill('SIGKILL');
    await once(worker.proc, 'exit');
  }
  await m?.close();
  await indexes?.close();
  if (worker) rmSync(workDirOf(worker.dataDir), { recursive: true, force: true });
  if (pythonDir) rmSync(pythonDir, { recursive: true, force: true });
});

describe('the Python of a node', () => {
  it('is the interpreter tasks run with, in the header and the languages table alike', async () => {
    const node = (await m.api('GET', `/nodes/${nodeId}`)).body.data as { systemInfo: { python: string } };
    expect(node.systemInfo.python).toBe(path.join(pythonDir, 'python3'));
    const python = (await environment()).languages.find((l) => l.key === 'python')!;
    expect(python.path).toBe(node.systemInfo.python);
    const said = execFileSync(SYSTEM_PYTHON, ['--version'], { encoding: 'utf8' });
    expect(said).toContain(python.version);
  });

  it('has pip on a fresh worker, before any environment was made', async () => {
    const pip = (await environment()).pip.find((p) => p.name === 'pip');
    expect(pip).toMatchObject({ state: 'installed', system: true });
  });

  it('lists a package the system already has after an install found it satisfied', async () => {
    const r = await m.api('POST', '/env-jobs', {
      body: { target: 'pip', action: 'install', name: 'scrapy', node_ids: [nodeId] },
    });
    expect(r.status, r.body.error).toBe(200);
    const id = r.body.data[0]._id as string;
    const job = await waitFor(
      'the install job ends',
      async () => {
        const j = (await m.api('GET', `/env-jobs/${id}`)).body.data as { status: string; log: string; error: string };
        return ['done', 'failed'].includes(j.status) ? j : undefined;
      },
      400_000,
      200,
    );
    expect(job.status, job.error).toBe('done');
    expect(job.log).toMatch(/Requirement already satisfied: scrapy/i);
    const pip = await environment();
    expect(pip.pip.find((p) => p.name.toLowerCase() === 'scrapy')).toMatchObject({ state: 'installed', system: true });
    // The node's own environment now exists: its pip is listed first, as the node's.
    expect(pip.pip[0]).toMatchObject({ name: 'pip', system: false });
  }, 420_000);
});

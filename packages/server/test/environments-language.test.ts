/**
 * A language installed on a node from the Debian archive with the node's own package manager (apt-get), through
 * an entry an administrator adds to the catalogue: Not Installed → Installing → Installed with its version.
 * One engine only: two apt-get runs at once on one machine wait on each other's dpkg lock.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';
import { waitFor, waitNodes } from './tasks.helpers.ts';

let m: TestMaster;
let nodeId = '';
const LUA = {
  key: 'lua',
  name: 'Lua 5.4',
  executable: 'lua5.4',
  version_args: ['-v'],
  packages: { apt: ['lua5.4'], dnf: ['lua'], apk: ['lua5.4'] },
};

type Lang = { key: string; state: string; version: string; path: string };
const lua = async (): Promise<Lang> =>
  ((await m.api('GET', `/nodes/${nodeId}/environment`)).body.data.languages as Lang[]).find((l) => l.key === 'lua')!;

async function runJob(action: 'install' | 'uninstall'): Promise<{ status: string; error: string; log: string }> {
  const r = await m.api('POST', '/env-jobs', { body: { target: 'language', action, name: 'lua', node_ids: [nodeId] } });
  expect(r.status, r.body.error).toBe(200);
  const id = r.body.data[0]._id as string;
  if (action === 'install') expect((await lua()).state).toBe('installing');
  return waitFor(
    `language ${action}`,
    async () => {
      const j = (await m.api('GET', `/env-jobs/${id}`)).body.data;
      return ['done', 'failed'].includes(j.status) ? j : undefined;
    },
    600_000,
    500,
  );
}

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1, 60_000);
  nodeId = ((await m.api('GET', '/nodes')).body.data as { _id: string }[])[0]._id;
}, 120_000);

afterAll(async () => {
  const dataDir = path.join(m.dataDir, 'node');
  await m?.close();
  rmSync(path.join(os.tmpdir(), `crawldeck-work-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`), {
    recursive: true,
    force: true,
  });
});

describe.runIf(ENGINE === 'sqlite')('languages on a node', () => {
  it('installs Lua from the Debian archive: Not Installed → Installing → Installed with its version', async () => {
    expect((await m.api('PUT', '/env-languages', { body: LUA })).status).toBe(200);
    const keys = ((await m.api('GET', '/env-languages')).body.data as { key: string }[]).map((l) => l.key);
    expect(keys).toEqual(expect.arrayContaining(['python', 'node', 'java', 'go', 'php', 'ruby', 'lua']));
    await waitFor('a report with lua', async () => (await lua()).state !== 'installing', 30_000);
    // A machine that has it from an earlier run gives it back first, so the test sees the whole way.
    if ((await lua()).state === 'installed') expect((await runJob('uninstall')).status).toBe('done');
    expect(await lua()).toMatchObject({ state: 'not-installed', version: '' });
    const job = await runJob('install');
    expect(job.status, job.log).toBe('done');
    const after = await lua();
    expect(after.state).toBe('installed');
    expect(after.version).toMatch(/^5\.4\.\d+$/);
    expect(after.path).toMatch(/lua5\.4$/);
  }, 900_000);
});

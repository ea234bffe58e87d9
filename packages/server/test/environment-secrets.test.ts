/**
 * Index passwords and the node's own files around per-spider environments: a private index whose password reaches
 * pip and npm but no answer a normal user can read, no install-job log, no log of the master or its node; a
 * requirements.txt that tries to change the index is refused with its line; a package.json whose install script
 * plants links where the node writes leaves a root-only file untouched.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSetting } from '../src/features/system/settings.store.ts';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { startPackageIndexes, type PackageIndexes } from './support/package-index.ts';

const USER = 'crawler';
const PASSWORD = 'Pa55-w0rd-of-the-index';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
let m: TestMaster;
let indexes: PackageIndexes;
let normal = '';
const logged: string[] = [];

/** Every place a secret could show: the password itself and the basic-auth header made from it. */
function expectNoSecret(what: string, text: string): void {
  expect(text.includes(PASSWORD), `${what} carries the index password`).toBe(false);
  expect(text.includes(BASIC), `${what} carries the index credentials`).toBe(false);
}

const withAuth = (url: string) => url.replace('http://', `http://${USER}:${PASSWORD}@`);

beforeAll(async () => {
  indexes = await startPackageIndexes({
    pip: { name: 'cdtiny', module: 'cdtiny', versions: ['1.0', '2.0'] },
    npm: { name: 'cdtiny-js', versions: ['1.0.0'] },
    auth: { user: USER, password: PASSWORD },
  });
  const logStream = new PassThrough();
  logStream.setEncoding('utf8');
  logStream.on('data', (chunk: string) => logged.push(chunk));
  m = await startTestMaster({ embeddedNode: true, logLevel: 'debug', logStream });
  const [node] = await waitNodes(m, 1, 60_000);
  const reported = async () => (await m.api('GET', `/nodes/${node._id}/environment`)).body.data.reported_ts as string;
  const first = await waitFor('the first report', reported, 60_000, 100);
  normal = await m.createUser('env_secret_user');
  const s = await m.api('POST', '/env-settings', {
    body: {
      pip_index_url: withAuth(indexes.pipIndex),
      pip_extra_index_url: '',
      npm_registry: withAuth(indexes.npmRegistry),
    },
  });
  expect(s.status, s.body.error).toBe(200);
  // Saving nudges the node to fetch the settings at once; it reports what it has each time it does.
  await waitFor('the node to fetch the settings', async () => (await reported()) !== first || undefined, 60_000, 100);
}, 120_000);

afterAll(async () => {
  await m?.close();
  await indexes?.close();
});

describe('per-spider environments and index passwords', () => {
  it("builds a normal user's environments from a private index and shows its password nowhere", async () => {
    const id = await makeSpider(
      m,
      'env-secret-spider',
      'python main.py',
      {
        'main.py':
          'import cdtiny, subprocess\nprint("cdtiny", cdtiny.VERSION)\n' +
          'print(subprocess.check_output(["node", "-p", "require(\'cdtiny-js\').version"], text=True).strip())\n',
        'requirements.txt': 'cdtiny==1.0\n',
        'package.json': JSON.stringify({
          name: 'secret-spider',
          version: '1.0.0',
          dependencies: { 'cdtiny-js': '1.0.0' },
        }),
      },
      {},
      normal,
    );
    const [taskId] = await runSpider(m, id, {}, normal);
    const t = await waitTask(m, taskId, ['finished', 'error'], 400_000);
    const lines = (await allLog(m, taskId)).map((l) => l.msg).join('\n');
    expect(t.status, lines).toBe('finished');
    expect(lines).toMatch(/cdtiny 1\.0\n1\.0\.0/);
    // pip was told the index without its password, and ran isolated from any configuration.
    expect(lines).toMatch(/\$ \S+ -m pip --isolated .*--index-url http:\/\/127\.0\.0\.1:\d+\/simple\//);

    // Everything the normal user may read of the task, the spider and the environments.
    const reads = [
      `/tasks/${taskId}`,
      `/tasks/${taskId}/log?page_size=100000`,
      '/tasks',
      `/spiders/${id}`,
      '/env-dependencies',
      '/nodes',
    ];
    for (const route of reads) {
      const [p, q] = route.split('?');
      const r = await m.api('GET', p, { token: normal, query: q ? Object.fromEntries(new URLSearchParams(q)) : {} });
      expect(r.status, route).toBe(200);
      expectNoSecret(route, JSON.stringify(r.body));
    }
    for (const route of ['/env-jobs', '/env-settings']) {
      const r = await m.api('GET', route, { token: normal });
      expect(r.status, route).toBe(403);
      expectNoSecret(route, JSON.stringify(r.body));
    }

    // An administrator's install job on the node: its log shows the command, never the password.
    const started = await m.api('POST', '/env-jobs', {
      body: {
        target: 'pip',
        action: 'install',
        name: 'cdtiny',
        version: '2.0',
        all_nodes: false,
        node_ids: [t.node_id],
      },
    });
    expect(started.status, started.body.error).toBe(200);
    const job = await waitFor(
      'the install job',
      async () => {
        const r = await m.api('GET', `/env-jobs/${started.body.data[0]._id}`);
        return ['done', 'failed'].includes(r.body.data.status) ? r.body.data : undefined;
      },
      400_000,
      200,
    );
    expect(job.status, job.log).toBe('done');
    expect(job.log).toMatch(/--index-url http:\/\/127\.0\.0\.1:\d+\/simple\//);
    const [other] = (await m.api('GET', `/env-jobs/${job._id}`, { token: normal })).body.data ?? [];
    expect(other).toBeUndefined();
    expectNoSecret('the job list', JSON.stringify((await m.api('GET', '/env-jobs')).body));

    // The lookup of a package in the private index carries the credentials; a wrong one never repeats them.
    const hit = await m.api('GET', '/env-packages/search', { query: { target: 'pip', q: 'cdtiny' } });
    expect(hit.body.data).toEqual([{ name: 'cdtiny', versions: ['1.0', '2.0'] }]);
    const down = await m.api('POST', '/env-settings', {
      body: {
        pip_index_url: `http://${USER}:${PASSWORD}@127.0.0.1:1/simple/`,
        pip_extra_index_url: '',
        npm_registry: '',
      },
    });
    expect(down.status).toBe(200);
    const failed = await m.api('GET', '/env-packages/search', { query: { target: 'pip', q: 'cdtiny' } });
    expect(failed.status).toBe(502);
    expectNoSecret('the failed lookup', JSON.stringify(failed.body));
    await m.api('POST', '/env-settings', {
      body: {
        pip_index_url: withAuth(indexes.pipIndex),
        pip_extra_index_url: '',
        npm_registry: withAuth(indexes.npmRegistry),
      },
    });

    expectNoSecret('the master and node logs', logged.join(''));
  }, 900_000);

  it('keeps index passwords encrypted at rest and shows them masked', async () => {
    const stored = JSON.stringify(await getSetting(m.master.store.db, 'environments', {}));
    expectNoSecret('the stored settings', stored);
    expect(stored).toContain('v1:');
    const shown = await m.api('GET', '/env-settings');
    expectNoSecret('the settings answer', JSON.stringify(shown.body));
    expect(shown.body.data.pip_index_url).toBe(indexes.pipIndex.replace('http://', `http://${USER}:***@`));
    // Saved back as shown (another field edited), the password stays what it was: the lookup still gets in.
    const again = await m.api('POST', '/env-settings', { body: { ...shown.body.data, pip_extra_index_url: '' } });
    expect(again.status, again.body.error).toBe(200);
    expectNoSecret('the save answer', JSON.stringify(again.body));
    const hit = await m.api('GET', '/env-packages/search', { query: { target: 'pip', q: 'cdtiny' } });
    expect(hit.body.data).toEqual([{ name: 'cdtiny', versions: ['1.0', '2.0'] }]);
    // A masked password with another host is refused: it cannot send the stored one elsewhere.
    const moved = await m.api('POST', '/env-settings', {
      body: { ...shown.body.data, pip_index_url: `http://${USER}:***@127.0.0.2:1/simple/` },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error).toMatch(/type the password again/);
  });

  it('refuses a requirements.txt that changes the index, with the line and why', async () => {
    const id = await makeSpider(
      m,
      'env-index-override',
      'python main.py',
      {
        'main.py': 'print(1)\n',
        'requirements.txt': 'cdtiny==1.0\n--extra-index-url http://127.0.0.1:1/simple/\n',
      },
      {},
      normal,
    );
    const [taskId] = await runSpider(m, id, {}, normal);
    const t = await waitTask(m, taskId, ['finished', 'error'], 120_000);
    expect(t.status).toBe('error');
    expect(t.error).toMatch(/requirements\.txt line 2: the option "--extra-index-url" is not allowed/);
  }, 180_000);

  it("never writes through a link the spider's install script planted", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-canary-'));
    const canary = path.join(dir, 'canary');
    writeFileSync(canary, 'root only\n', { mode: 0o600 });
    const before = statSync(canary);
    try {
      const plant = ['.crawldeck-ready', '../ready', '../netrc', '../npmrc', '../.crawldeck-ready']
        .map((name) => `ln -sf ${canary} ${name} 2>/dev/null`)
        .join('; ');
      const id = await makeSpider(
        m,
        'env-link-planter',
        'node -e "console.log(\'ran\')"',
        {
          'package.json': JSON.stringify({
            name: 'link-planter',
            version: '1.0.0',
            scripts: { preinstall: `${plant}; true` },
          }),
        },
        {},
        normal,
      );
      for (let i = 0; i < 2; i++) {
        const [taskId] = await runSpider(m, id, {}, normal);
        const t = await waitTask(m, taskId, ['finished', 'error'], 180_000);
        expect(t.status, (await allLog(m, taskId)).map((l) => l.msg).join('\n')).toBe('finished');
      }
      const after = statSync(canary);
      expect(readFileSync(canary, 'utf8')).toBe('root only\n');
      expect(after.mtimeMs).toBe(before.mtimeMs);
      expect([after.uid, after.mode & 0o777]).toEqual([before.uid, 0o600]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 400_000);
});

/**
 * Joining a node from another machine: in an empty folder, the one-line installer the master serves fetches the
 * node bundle, checks its SHA-256 and unpacks it; the node started from there (key in a file, nothing from this
 * repository) joins and runs a spider that stores an item through the SDK.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';

const KEY = 'join-test-node-key';
let m: TestMaster;
let dir: string;
let node: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  m = await startTestMaster({ nodeKey: KEY });
  dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-join-'));
}, 60_000);

afterAll(async () => {
  node?.kill('SIGKILL');
  await m?.close();
  const dataDir = path.join(dir, 'data');
  rmSync(path.join(os.tmpdir(), `crawldeck-work-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`), {
    recursive: true,
    force: true,
  });
  rmSync(dir, { recursive: true, force: true });
});

/** Only what a fresh machine has: Node.js and the system tools on PATH, no variable of this test run. */
/** The master runs in this process: a synchronous child would stall it. */
const run = promisify(execFile);

const bareEnv = () => ({
  PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  HOME: dir,
  LANG: 'C.UTF-8',
});

describe('joining a node from another machine', () => {
  it('installs from the master into an empty folder and joins with the key in a file', async () => {
    const manifest = (await m.api('GET', '/node-install/manifest', { token: null })).body.data;
    expect(manifest.sha256).toMatch(/^[0-9a-f]{64}$/);
    const join = (await m.api('GET', '/nodes-join')).body.data.command as string;
    expect(join).not.toMatch(/--key /);
    expect(readdirSync(dir)).toEqual([]);

    const said = (
      await run('sh', ['-c', `curl -fsSL ${m.url}/api/node-install/install.sh | sh`], { cwd: dir, env: bareEnv() })
    ).stdout;
    expect(said).toMatch(/crawldeck node .* installed in crawldeck-node/);
    const bin = path.join(dir, 'crawldeck-node', 'bin', 'crawldeck-node');
    expect(existsSync(bin)).toBe(true);

    // A key on the command line is refused (it would show in ps).
    const refused = spawn(bin, ['--master', m.url, '--key', KEY], { cwd: dir, env: bareEnv() });
    let refusal = '';
    refused.stderr!.on('data', (d) => (refusal += d));
    expect(await new Promise((r) => refused.on('close', r))).toBe(1);
    expect(refusal).toMatch(/--key is not accepted/);

    writeFileSync(path.join(dir, 'node-key'), KEY + '\n', { mode: 0o600 });
    node = spawn(bin, ['--master', m.url, '--key-file', 'node-key', '--data-dir', 'data', '--name', 'far-away'], {
      cwd: dir,
      env: bareEnv(),
    });
    node.stdout!.on('data', (d) => (output += d));
    node.stderr!.on('data', (d) => (output += d));
    await waitNodes(m, 1, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${output}`);
    });
    const nodes = (await m.api('GET', '/nodes')).body.data as { _id: string; name: string }[];
    expect(nodes.map((n) => n.name)).toEqual(['far-away']);

    const spider = await makeSpider(m, 'far-spider', 'python3 main.py', {
      'main.py': 'from crawldeck import save_item\nsave_item({"hello": "from far away"})\n',
    });
    const [taskId] = await runSpider(m, spider);
    const t = await waitTask(m, taskId, ['finished', 'error'], 60_000);
    expect(t.status, output).toBe('finished');
    const items = await waitFor('the item', async () => {
      const r = await m.api('GET', `/tasks/${taskId}/results`);
      return r.body.data?.length ? r.body.data : undefined;
    });
    expect(items[0].hello).toBe('from far away');
  }, 180_000);

  it('refuses a bundle whose hash does not match', async () => {
    const script = await (await fetch(`${m.url}/api/node-install/install.sh`)).text();
    const tampered = script.replace(/^SHA256='[0-9a-f]+'/m, `SHA256='${'0'.repeat(64)}'`);
    const other = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-join-bad-'));
    try {
      writeFileSync(path.join(other, 'install.sh'), tampered);
      let failed = '';
      try {
        await run('sh', ['install.sh'], { cwd: other, env: bareEnv() });
      } catch (err) {
        failed = String((err as { stderr?: string }).stderr);
      }
      expect(failed).toMatch(/SHA-256 .* nothing installed/);
      expect(existsSync(path.join(other, 'crawldeck-node'))).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 60_000);
});

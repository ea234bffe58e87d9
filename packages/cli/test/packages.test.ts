/**
 * The CLI and the node as npm packages: both packed with `npm pack`, installed into an empty folder with nothing
 * from this repository, and used there — the node joins a real master; the installed CLI signs in, deploys a
 * spider, runs it on that node and follows it to its end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackages } from '../src/package-build.ts';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from '../../server/test/harness.ts';
import { waitFor } from '../../server/test/tasks.helpers.ts';

const KEY = 'packages-test-node-key';
let m: TestMaster;
let root: string;
let app: string;
let node: ChildProcess | undefined;

/** Only what a fresh machine has: Node.js and the system tools on PATH. */
const bareEnv = (extra: Record<string, string> = {}) => ({
  PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  HOME: root,
  LANG: 'C.UTF-8',
  ...extra,
});

function exec(cmd: string, args: string[], input = '') {
  const child = spawn(cmd, args, { cwd: app, env: bareEnv() });
  child.stdin.end(input);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out, err })),
  );
}

beforeAll(async () => {
  m = await startTestMaster({ nodeKey: KEY });
  root = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-packages-'));
  app = path.join(root, 'app');
  mkdirSync(app);
}, 60_000);

afterAll(async () => {
  if (node && node.exitCode === null) {
    const gone = new Promise((r) => node!.on('close', r));
    node.kill('SIGTERM');
    await gone;
  }
  await m?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the crawldeck and crawldeck-node packages', () => {
  it('install into an empty folder without this repository and run there', async () => {
    const tarballs = await packPackages(path.join(root, 'packed'));
    for (const [name, file] of [
      ['crawldeck', tarballs.cli],
      ['crawldeck-node', tarballs.node],
    ]) {
      expect(path.basename(file)).toMatch(new RegExp(`^${name}-\\d+\\.\\d+\\.\\d+\\.tgz$`));
    }
    const installed = await exec('npm', [
      'install',
      '--offline',
      '--no-audit',
      '--no-fund',
      tarballs.cli,
      tarballs.node,
    ]);
    expect(installed.code, installed.err).toBe(0);
    const pkg = JSON.parse(readFileSync(path.join(app, 'node_modules', 'crawldeck', 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ bin: { crawldeck: 'bin/crawldeck.mjs' }, engines: { node: '>=20.19' } });
    expect(pkg.dependencies).toBeUndefined();

    const cliHelp = await exec('node_modules/.bin/crawldeck', ['--help']);
    expect(cliHelp.code, cliHelp.err).toBe(0);
    expect(cliHelp.out).toMatch(/login/);
    const nodeHelp = await exec('node_modules/.bin/crawldeck-node', ['--help']);
    expect(nodeHelp.code, nodeHelp.err).toBe(0);
    expect(nodeHelp.out).toMatch(/^usage: crawldeck-node --master URL/);
    const start = await exec('node_modules/.bin/crawldeck', ['start']);
    expect(start.code).toBe(1);
    expect(start.err).toMatch(/not part of this installation: the master runs from a Crawldeck checkout/);

    // The installed node joins, and the installed CLI runs a spider on it and follows it to its end.
    writeFileSync(path.join(root, 'node-key'), KEY + '\n', { mode: 0o600 });
    node = spawn('node_modules/.bin/crawldeck-node', ['--master', m.url, '--key-file', path.join(root, 'node-key')], {
      cwd: app,
      env: bareEnv(),
    });
    let nodeOut = '';
    node.stderr!.on('data', (d) => (nodeOut += d));
    await waitFor(
      'the packaged node online',
      async () => {
        const nodes = (await m.api('GET', '/nodes')).body.data as { status: string }[];
        return nodes.some((n) => n.status === 'online');
      },
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${nodeOut}`);
    });
    const spiderDir = path.join(root, 'packaged');
    mkdirSync(spiderDir);
    writeFileSync(
      path.join(spiderDir, 'main.py'),
      'from crawldeck import save_item\nprint("hello from the package")\nsave_item({"n": 1})\n',
    );
    const cd = 'node_modules/.bin/crawldeck';
    const login = await exec(cd, ['login', '--url', m.url, '-u', 'admin', '--password-stdin'], `${ADMIN_PASSWORD}\n`);
    expect(login.code, login.err).toBe(0);
    const deploy = await exec(cd, ['deploy', spiderDir, '--name', 'packaged', '--cmd', 'python3 main.py']);
    expect(deploy.code, deploy.err).toBe(0);
    const run = await exec(cd, ['run', 'packaged', '--follow']);
    expect(run.code, `${run.out}\n${run.err}\n${nodeOut}`).toBe(0);
    expect(run.out).toMatch(/hello from the package/);
  }, 300_000);
});

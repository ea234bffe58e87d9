/**
 * The node's one-line installer, run for real against a master: running it again upgrades the node and keeps what
 * the operator and the node put in its folder (the key, the data); pointed at a folder it did not make, it leaves
 * that folder's files alone. The installed node's command line: usage, a refused key, a master that is down.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

const KEY = 'installer-test-node-key';
const run = promisify(execFile);
let m: TestMaster;
let root: string;

beforeAll(async () => {
  m = await startTestMaster({ nodeKey: KEY });
  root = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-installer-'));
}, 60_000);

afterAll(async () => {
  await m?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Only what a fresh machine has: Node.js and the system tools on PATH, no variable of this test run. */
const bareEnv = (extra: Record<string, string> = {}) => ({
  PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  HOME: root,
  LANG: 'C.UTF-8',
  ...extra,
});

/** Runs the installer the master serves, as the one-line command does; resolves with its status and output. */
async function install(cwd: string, extra: Record<string, string> = {}) {
  try {
    const r = await run('sh', ['-c', `curl -fsSL ${m.url}/api/node-install/install.sh | sh`], {
      cwd,
      env: bareEnv(extra),
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

function folder(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Runs the installed node with these arguments until it exits; resolves with its status and output. */
function runNode(bin: string, args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(bin, args, { cwd, env: bareEnv() });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

describe('the node installer', () => {
  it('upgrades in place: the node key and the data stay, the old code goes', async () => {
    const cwd = folder('upgrade');
    expect((await install(cwd)).code).toBe(0);
    const home = path.join(cwd, 'crawldeck-node');
    writeFileSync(path.join(home, 'node-key'), KEY + '\n', { mode: 0o600 });
    mkdirSync(path.join(home, 'data'));
    writeFileSync(path.join(home, 'data', 'node-id'), 'aaaaaaaaaaaaaaaaaaaaaaaa\n');
    writeFileSync(path.join(home, 'packages', 'left-by-an-older-version.txt'), 'old');

    const again = await install(cwd);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toMatch(/installed in crawldeck-node/);
    expect(readFileSync(path.join(home, 'node-key'), 'utf8')).toBe(KEY + '\n');
    expect(readFileSync(path.join(home, 'data', 'node-id'), 'utf8')).toBe('aaaaaaaaaaaaaaaaaaaaaaaa\n');
    expect(existsSync(path.join(home, 'packages', 'left-by-an-older-version.txt'))).toBe(false);
    expect(existsSync(path.join(home, 'packages', 'node', 'dist', 'crawldeck-node.mjs'))).toBe(true);
    expect(readdirSync(home).sort()).toEqual([
      '.crawldeck-node-install',
      'VERSION',
      'bin',
      'data',
      'node-key',
      'packages',
    ]);

    // A folder made by an installer that left no mark is still recognised as a node's and upgraded the same way.
    rmSync(path.join(home, '.crawldeck-node-install'));
    expect((await install(cwd)).code).toBe(0);
    expect(readFileSync(path.join(home, 'node-key'), 'utf8')).toBe(KEY + '\n');
    expect(readdirSync(path.join(home, 'data'))).toEqual(['node-id']);
  }, 120_000);

  it('installs beside the files of an existing CRAWLDECK_NODE_HOME and never replaces one of them', async () => {
    const home = folder('existing-home');
    writeFileSync(path.join(home, 'notes.txt'), 'mine');
    mkdirSync(path.join(home, 'work'));
    writeFileSync(path.join(home, 'work', 'keep.txt'), 'mine too');
    const r = await install(folder('elsewhere'), { CRAWLDECK_NODE_HOME: home });
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(home, 'notes.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(path.join(home, 'work', 'keep.txt'), 'utf8')).toBe('mine too');
    expect(existsSync(path.join(home, 'bin', 'crawldeck-node'))).toBe(true);
    expect(readdirSync(home).filter((f) => f.startsWith('.crawldeck-install'))).toEqual([]);

    // A folder whose own `bin` would be replaced: refused, nothing changed.
    const taken = folder('taken-home');
    mkdirSync(path.join(taken, 'bin'));
    writeFileSync(path.join(taken, 'bin', 'tool'), 'not the node');
    const refused = await install(folder('elsewhere'), { CRAWLDECK_NODE_HOME: taken });
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatch(/bin exists and was not installed by Crawldeck: nothing installed/);
    expect(readdirSync(taken)).toEqual(['bin']);
    expect(readdirSync(path.join(taken, 'bin'))).toEqual(['tool']);
  }, 120_000);
});

describe('the installed node', () => {
  let home: string;
  let bin: string;

  beforeAll(async () => {
    const cwd = folder('cli');
    expect((await install(cwd)).code).toBe(0);
    home = path.join(cwd, 'crawldeck-node');
    bin = path.join(home, 'bin', 'crawldeck-node');
  }, 120_000);

  it('prints its usage on --help, and on an unknown option with status 2', async () => {
    const help = await runNode(bin, ['--help'], root);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: crawldeck-node --master URL/);
    const unknown = await runNode(bin, ['--bogus'], root);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/Unknown option '--bogus'[\s\S]*usage: crawldeck-node/);
  }, 60_000);

  it('stops with a clear message when the master refuses its key, keeping its data in its own folder', async () => {
    const cwd = folder('started-from-here');
    writeFileSync(path.join(home, 'node-key'), 'not-the-key\n', { mode: 0o600 });
    const r = await runNode(bin, ['--master', m.url, '--key-file', path.join(home, 'node-key')], cwd);
    expect(r.code, r.err).toBe(78);
    expect(r.err).toMatch(/refused the node key .* Stopped\./);
    expect(readFileSync(path.join(home, 'data', 'node-id'), 'utf8')).toMatch(/^[0-9a-f]{24}\n$/);
    expect(readdirSync(cwd)).toEqual([]);
  }, 60_000);

  it('stops as well when something in front of the master answers 403', async () => {
    const proxy = http.createServer((_req, res) => {
      res.statusCode = 403;
      res.end('forbidden');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      writeFileSync(path.join(home, 'node-key'), KEY + '\n', { mode: 0o600 });
      const r = await runNode(bin, ['--master', url, '--key-file', path.join(home, 'node-key')], root);
      expect(r.code, r.err).toBe(78);
      expect(r.err).toMatch(/refused the node key \(the master answered 403/);
    } finally {
      proxy.close();
    }
  }, 60_000);

  it('keeps trying a master that is down', async () => {
    const port = await closedPort();
    writeFileSync(path.join(home, 'node-key'), KEY + '\n', { mode: 0o600 });
    const child = spawn(bin, ['--master', `http://127.0.0.1:${port}`, '--key-file', path.join(home, 'node-key')], {
      cwd: root,
      env: bareEnv(),
    });
    let err = '';
    const tries = new Promise<void>((resolve) =>
      child.stderr.on('data', (d) => {
        err += d;
        if ((err.match(/connection error/g) ?? []).length >= 3) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await tries;
    expect(child.exitCode).toBe(null);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});

/** A loopback port nothing listens on (taken from the system, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, giveTree, passThroughDir, privateDir, removeUserTree, taskIdentity } from './sandbox.ts';

// Others may pass through (as the node's work dir lets them), not list or write.
const root = passThroughDir(mkdtempSync(path.join(os.tmpdir(), 'crawldeck-sandbox-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const asRoot = process.getuid?.() === 0;

describe('sandbox', () => {
  it('builds the environment from an allow-list, never from our own', () => {
    process.env.CRAWLDECK_SANDBOX_SECRET = 'top-secret';
    const env = baseEnv('/home/x', '/opt/bin');
    expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'PATH', ...(process.env.TZ ? ['TZ'] : [])].sort());
    expect(env.HOME).toBe('/home/x');
    expect(env.PATH!.startsWith('/opt/bin:')).toBe(true);
    expect(JSON.stringify(env)).not.toContain('top-secret');
  });

  it('makes private (0700) and pass-through (0711) folders and refuses a link in place of one', () => {
    expect(statSync(privateDir(path.join(root, 'private'))).mode & 0o777).toBe(0o700);
    expect(statSync(passThroughDir(path.join(root, 'through'))).mode & 0o777).toBe(0o711);
    symlinkSync(path.join(root, 'private'), path.join(root, 'link'));
    expect(() => passThroughDir(path.join(root, 'link'))).toThrow(/not a directory/);
  });

  it.runIf(asRoot)(
    'gives a tree to the task user and removes it as that user: a planted link deletes nothing of ours',
    () => {
      const id = taskIdentity()!;
      expect(id.uid).not.toBe(0);
      expect(Number(execFileSync('id', ['-u', id.user], { encoding: 'utf8' }))).toBe(id.uid);
      const precious = path.join(privateDir(path.join(root, 'precious')), 'secret');
      writeFileSync(precious, 'keep me', { mode: 0o600 });
      const run = passThroughDir(path.join(root, 'run'));
      const ws = path.join(run, 'ws');
      mkdirSync(path.join(ws, 'a', 'b'), { recursive: true });
      writeFileSync(path.join(ws, 'a', 'b', 'f.txt'), 'x');
      giveTree(ws, id);
      for (const p of [ws, path.join(ws, 'a'), path.join(ws, 'a', 'b', 'f.txt')]) expect(lstatSync(p).uid).toBe(id.uid);
      // What the task might leave behind: links to our folder and file.
      execFileSync('ln', ['-s', path.dirname(precious), path.join(ws, 'dir-link')], { uid: id.uid, gid: id.gid });
      execFileSync('ln', ['-s', precious, path.join(ws, 'a', 'file-link')], { uid: id.uid, gid: id.gid });
      removeUserTree(ws, id);
      expect(existsSync(ws)).toBe(false);
      expect(readFileSync(precious, 'utf8')).toBe('keep me');
    },
  );
});

import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeKeys, readOwnKey, saveOwnKey } from './credential.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-credential-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the node's own key in its data dir", () => {
  it('is written readable by its owner alone, and read back', () => {
    const dir = tempDir();
    saveOwnKey(dir, 'first-key');
    saveOwnKey(dir, 'second-key');
    const file = path.join(dir, 'node-credential');
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(readOwnKey(dir)).toBe('second-key');
  });

  it('never writes or reads through a link in its place', () => {
    const dir = tempDir();
    const canary = path.join(tempDir(), 'canary');
    writeFileSync(canary, 'untouched\n');
    symlinkSync(canary, path.join(dir, 'node-credential'));
    expect(readOwnKey(dir)).toBeUndefined();
    saveOwnKey(dir, 'the-key');
    expect(readFileSync(canary, 'utf8')).toBe('untouched\n');
    expect(lstatSync(path.join(dir, 'node-credential')).isSymbolicLink()).toBe(false);
    expect(readOwnKey(dir)).toBe('the-key');
  });

  it('presents the shared key until the node has its own, and its own after a restart', () => {
    const dir = tempDir();
    const used: string[] = [];
    const master = { useKey: (k: string) => used.push(k) };
    const keys = new NodeKeys(dir, 'shared', master);
    keys.keep('own');
    new NodeKeys(dir, 'shared', master);
    expect(used).toEqual(['shared', 'own', 'own']);
  });
});

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sourceFolderIn } from './source-folder.ts';

const ws = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-srcfolder-'));
const outside = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-srcfolder-out-'));
mkdirSync(path.join(ws, 'a', 'b'), { recursive: true });
writeFileSync(path.join(ws, 'a', 'file.txt'), 'x');
symlinkSync(outside, path.join(ws, 'escape'));
symlinkSync(path.join(ws, 'a', 'b'), path.join(ws, 'a', 'inner'));
afterAll(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('the source folder a task starts in', () => {
  it('is the workspace without one and the real folder inside it with one', () => {
    expect(sourceFolderIn(ws, undefined)).toBe(ws);
    expect(sourceFolderIn(ws, '')).toBe(ws);
    expect(sourceFolderIn(ws, './a//b/')).toBe(path.join(ws, 'a', 'b'));
  });

  it('refuses paths leaving the workspace, links (even to folders inside it), files and missing folders', () => {
    expect(() => sourceFolderIn(ws, '../x')).toThrow(/no "\.\."/);
    expect(() => sourceFolderIn(ws, '/tmp')).toThrow(/absolute/);
    expect(() => sourceFolderIn(ws, 'escape')).toThrow(/link/);
    expect(() => sourceFolderIn(ws, 'a/inner')).toThrow(/link/);
    expect(() => sourceFolderIn(ws, 'a/file.txt')).toThrow(/not a folder/);
    expect(() => sourceFolderIn(ws, 'a/none')).toThrow(/not in the spider's files/);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envJobReason } from '@crawldeck/shared';
import { sudoRefusal } from './commands.ts';
import { runTool } from './tool.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-sudo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a language job sudo refuses', () => {
  const argv = ['sudo', '-n', 'apt-get', 'install', '-y', 'ruby'];
  const user = os.userInfo().username;

  it('says what is wrong and what to do when sudo cannot be started', async () => {
    // A sudo the node's user may not execute: the spawn itself fails with EACCES.
    writeFileSync(path.join(dir, 'sudo'), '#!/bin/sh\n', { mode: 0o644 });
    const r = await runTool({ argv, env: { PATH: dir }, onLine: () => undefined });
    expect(r.tail.join('\n')).toContain('EACCES');
    const error = sudoRefusal(argv, r)!;
    expect(error).not.toContain('EACCES');
    expect(error).toContain(`the node runs as "${user}", which may not run apt-get through sudo without a password`);
    expect(envJobReason(error)).toEqual({ kind: 'needs_root', user, tool: 'apt-get' });
  });

  it('reads sudo asking for a password the same way, and leaves the package manager its own words', () => {
    const asked = { code: 1, tail: ['$ sudo -n apt-get install -y ruby', 'sudo: a password is required'] };
    expect(envJobReason(sudoRefusal(argv, asked)!)).toEqual({ kind: 'needs_root', user, tool: 'apt-get' });
    const apt = { code: 100, tail: ['E: Unable to locate package ruby'] };
    expect(sudoRefusal(argv, apt)).toBeNull();
    expect(sudoRefusal(['apk', 'add', 'ruby'], asked)).toBeNull();
  });
});

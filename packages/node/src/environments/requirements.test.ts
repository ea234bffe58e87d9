import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRequirements } from './requirements.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-req-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(text: string, extra: Record<string, string> = {}): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'requirements.txt'), text);
  for (const [f, t] of Object.entries(extra)) writeFileSync(path.join(dir, f), t);
  try {
    checkRequirements(dir);
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
}

describe("a spider's requirements.txt", () => {
  it('may name packages, versions, extras, markers, hashes, local paths and its own requirement files', () => {
    expect(
      check(
        [
          '# comment',
          'scrapy>=2.11  # trailing',
          'requests[socks]==2.31 ; python_version >= "3.8"',
          'cdtiny==1.0 \\',
          '    --hash=sha256:abc',
          '-e ./localpkg',
          '-r more.txt',
          './wheels/x-1.0-py3-none-any.whl',
        ].join('\n'),
        { 'more.txt': 'lxml\n' },
      ),
    ).toBe('ok');
  });

  it.each([
    ['--index-url http://evil/simple', '"--index-url"'],
    ['-i http://evil/simple', '"-i"'],
    ['--extra-index-url=http://evil/simple', '"--extra-index-url"'],
    ['--trusted-host evil', '"--trusted-host"'],
    ['-f http://evil/links', '"-f"'],
    ['--find-links=/tmp/wheels', '"--find-links"'],
    ['--no-index', '"--no-index"'],
    ['-e git+file:///tmp/repo#egg=x', 'editable install from a link'],
    ['--editable=git+https://evil/x.git#egg=x', 'editable install from a link'],
    ['x @ https://evil/x-1.0.tar.gz', 'a direct link'],
    ['git+https://evil/x.git', 'a direct link'],
    ['file:///tmp/x.whl', 'a direct link'],
    ['cdtiny --index-url http://evil/', '"--index-url"'],
    ['-r /etc/passwd', 'including "/etc/passwd"'],
    ['-r ../other.txt', 'including "../other.txt"'],
  ])('refuses %s with the line and why', (line, why) => {
    const said = check(`cdtiny\n${line}\n`);
    expect(said).toContain('requirements.txt line 2');
    expect(said).toContain(why);
    expect(said).toContain('the index the administrator set');
  });

  it('looks into included files and does not follow a link', () => {
    expect(check('-r more.txt\n', { 'more.txt': 'a\n--index-url http://evil/\n' })).toContain('more.txt line 2');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    symlinkSync('/etc/passwd', path.join(dir, 'requirements.txt'));
    expect(() => checkRequirements(dir)).toThrow(/cannot be read: ELOOP/);
  });
});

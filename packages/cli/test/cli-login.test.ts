import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from '../../server/test/harness.ts';
import { runCli, type CliOptions } from './cli.helpers.ts';

let m: TestMaster;
let home: string;
const cli = (args: string[], opts: CliOptions = {}) => runCli(home, args, opts);
const savedConfig = (): Record<string, string> =>
  JSON.parse(readFileSync(path.join(home, 'cfg', 'config.json'), 'utf8')) as Record<string, string>;
const savedToken = (): string => savedConfig().token;

interface ListedToken {
  _id: string;
  name: string;
  create_ts: string;
  expire_ts: string | null;
}
const cliTokens = async (): Promise<ListedToken[]> =>
  ((await m.api('GET', '/tokens')).body.data as ListedToken[]).filter((t) => t.name.startsWith('crawldeck CLI on '));

beforeAll(async () => {
  m = await startTestMaster();
  home = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-cli-login-'));
});
afterAll(async () => {
  await m?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('crawldeck login keeps tokens out of sight and from piling up', () => {
  it('each password login keeps one CLI token that expires in 30 days, replacing the one before', async () => {
    const login = () =>
      cli(['login', '--url', m.url, '-u', 'admin', '--password-stdin'], { input: `${ADMIN_PASSWORD}\n` });
    const first = await login();
    expect(first.code, first.stderr).toBe(0);
    const firstToken = savedToken();
    const [made] = await cliTokens();
    expect(made.expire_ts).not.toBeNull();
    const days = (Date.parse(made.expire_ts!) - Date.parse(made.create_ts)) / 86400_000;
    expect(days).toBe(30);

    const second = await login();
    expect(second.code, second.stderr).toBe(0);
    const tokens = await cliTokens();
    expect(tokens).toHaveLength(1);
    expect(tokens[0]._id).not.toBe(made._id);
    // The earlier token is revoked; the kept one works.
    expect((await m.api('GET', '/me', { token: firstToken })).status).toBe(401);
    expect((await m.api('GET', '/me', { token: savedToken() })).body.data.username).toBe('admin');
  });

  it('takes a console-made token from standard input or a file, and refuses one on the command line', async () => {
    const made = await m.api('PUT', '/tokens', { body: { name: 'laptop' } });
    const raw: string = made.body.data.token;

    const refused = await cli(['login', '--url', m.url, '--token', raw]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--token is not accepted: .*use --token-stdin or --token-file PATH/);

    const fromStdin = await cli(['login', '--url', m.url, '--token-stdin'], { input: `${raw}\n` });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout).toMatch(/Signed in to .* as admin/);
    expect(savedToken()).toBe(raw);

    const file = path.join(home, 'token.txt');
    writeFileSync(file, `${raw}\n`, { mode: 0o600 });
    const fromFile = await cli(['login', '--url', m.url, '--token-file', file]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(savedToken()).toBe(raw);

    const missing = await cli(['login', '--url', m.url, '--token-file', path.join(home, 'nope.txt')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read the token file/);
    const empty = await cli(['login', '--url', m.url, '--token-stdin'], { input: '' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no token on standard input/);
  });

  it('logout revokes the token login made, removes it from the config and keeps the address', async () => {
    const login = await cli(['login', '--url', m.url, '-u', 'admin', '--password-stdin'], {
      input: `${ADMIN_PASSWORD}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const token = savedToken();
    const [made] = await cliTokens();

    const r = await cli(['logout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Signed out of .*: the CLI token is revoked on the master; .* holds no token now\n$/);
    expect((await m.api('GET', '/me', { token })).status).toBe(401);
    expect((await cliTokens()).map((t) => t._id)).not.toContain(made._id);
    expect(savedConfig()).toEqual({ url: m.url });
    const after = await cli(['tasks']);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/not signed in: run `crawldeck login/);

    const again = await cli(['logout', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ signed_in: false });
  });

  it('logout forgets a console-made token without revoking it, and keeps the token when the master is away', async () => {
    const raw: string = (await m.api('PUT', '/tokens', { body: { name: 'desk' } })).body.data.token;
    expect((await cli(['login', '--url', m.url, '--token-stdin'], { input: raw })).code).toBe(0);
    const r = await cli(['logout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/made in the console .* stays valid there until you revoke it under Settings → Tokens/);
    expect((await m.api('GET', '/me', { token: raw })).status).toBe(200);
    expect(savedConfig()).toEqual({ url: m.url });

    // A token whose revocation cannot reach the master stays, so a later logout can revoke it.
    const login = await cli(['login', '--url', m.url, '-u', 'admin', '--password-stdin'], {
      input: `${ADMIN_PASSWORD}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const stored = savedConfig();
    const away = { ...stored, url: 'http://127.0.0.1:1' };
    writeFileSync(path.join(home, 'cfg', 'config.json'), JSON.stringify(away), { mode: 0o600 });
    const failed = await cli(['logout']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^error: cannot reach the master at http:\/\/127\.0\.0\.1:1: .*the token is kept/);
    expect(savedConfig()).toEqual(away);
    writeFileSync(path.join(home, 'cfg', 'config.json'), JSON.stringify(stored), { mode: 0o600 });
    expect((await cli(['logout'])).code).toBe(0);
    expect((await m.api('GET', '/me', { token: stored.token })).status).toBe(401);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { startTestMaster, type TestMaster } from './harness.ts';
import { startGitHttpServer, type GitHttpServer } from './support/git-http.ts';

let m: TestMaster;
let srv: GitHttpServer;

beforeAll(async () => {
  process.env.CRAWLDECK_GIT_AUTO_SYNC_S = '0';
  [m, srv] = await Promise.all([startTestMaster(), startGitHttpServer()]);
});
afterAll(async () => {
  await m?.close();
  await srv?.close();
});

const readFile = async (id: string, path: string) =>
  (await m.api('GET', `/spiders/${id}/file`, { query: { path } })).body;

describe('git spiders', () => {
  it('imports a public repository, syncs new commits and resets console edits', async () => {
    const url = srv.createRepo('demo', { 'main.py': 'print("v1")\n', 'README.md': '# demo\n' });
    const imp = await m.api('POST', '/spiders/import/github', { body: { url, type: 'github' } });
    expect(imp.status, imp.body.error).toBe(200);
    const id = imp.body.data._id;
    expect(imp.body.data.name).toBe('demo');
    expect(imp.body.data.git_url).toBe(url);
    expect(imp.body.data.git.commit.message).toBe('initial commit');
    expect(imp.body.data.git.branches).toEqual(['main']);
    expect((await readFile(id, 'main.py')).data).toBe('print("v1")\n');

    // a console edit to a file the remote does not change survives a sync; remote changes arrive
    await m.api('POST', `/spiders/${id}/file`, { body: { path: 'README.md', content: '# edited in console\n' } });
    const hash = srv.commit('demo', { 'main.py': 'print("v2")\n', 'new.py': 'x = 1\n' }, 'second commit');
    const sync = await m.api('POST', `/spiders/${id}/git/sync`, { body: {} });
    expect(sync.status, sync.body.error).toBe(200);
    expect(sync.body.data.commit).toMatchObject({ hash, message: 'second commit', author: 'Test <t@example.com>' });
    expect((await readFile(id, 'main.py')).data).toBe('print("v2")\n');
    expect((await readFile(id, 'new.py')).data).toBe('x = 1\n');
    expect((await readFile(id, 'README.md')).data).toBe('# edited in console\n');

    // deletions upstream arrive too
    srv.commit('demo', { 'new.py': null }, 'remove new.py');
    expect((await m.api('POST', `/spiders/${id}/git/sync`)).status).toBe(200);
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'new.py' } })).status).toBe(404);

    // reset discards console edits
    await m.api('POST', `/spiders/${id}/file`, { body: { path: 'main.py', content: 'broken' } });
    await m.api('POST', `/spiders/${id}/file`, { body: { path: 'scratch.txt', content: 'tmp' } });
    const reset = await m.api('POST', `/spiders/${id}/git/reset`);
    expect(reset.status, reset.body.error).toBe(200);
    expect((await readFile(id, 'main.py')).data).toBe('print("v2")\n');
    expect((await readFile(id, 'README.md')).data).toBe('# demo\n');
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'scratch.txt' } })).status).toBe(404);

    const info = await m.api('GET', `/spiders/${id}/git`);
    expect(info.status).toBe(200);
    expect(info.body.data).toMatchObject({
      remote: url,
      branch: 'main',
      branches: ['main'],
      last_error: '',
      auto_sync: false,
    });
    expect(info.body.data.commit.message).toBe('remove new.py');
    expect(info.body.data.last_sync_ts).toMatch(/^\d{4}-/);
  });

  it('switches branches and lists them', async () => {
    const url = srv.createRepo('branchy', { 'a.txt': 'main\n' });
    srv.commit('branchy', { 'a.txt': 'dev\n' }, 'on dev', 'dev');
    const imp = await m.api('POST', '/spiders/import/github', { body: { url } });
    expect(imp.status, imp.body.error).toBe(200);
    const id = imp.body.data._id;
    expect(imp.body.data.git.branches).toEqual(['dev', 'main']);
    expect(imp.body.data.git.branch).toBe('main');
    await m.api('POST', `/spiders/${id}`, { body: { git_branch: 'dev' } });
    const sync = await m.api('POST', `/spiders/${id}/git/sync`);
    expect(sync.status, sync.body.error).toBe(200);
    expect(sync.body.data.branch).toBe('dev');
    expect((await readFile(id, 'a.txt')).data).toBe('dev\n');
    const bad = await m.api('POST', `/spiders/${id}/git/sync`, { body: { branch: 'nope' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/branch "nope" does not exist/);
    expect(
      (await m.api('POST', `/spiders/${id}/git/sync`, { body: { branch: '--upload-pack=touch /tmp/x' } })).status,
    ).toBe(400);
  });

  it('uses stored credentials without returning or logging them', async () => {
    srv.createRepo('private/secret', { 'x.py': 'secret = 1\n' });
    const url = `${srv.url}/private/secret.git`;
    const noAuth = await m.api('POST', '/spiders/import/github', { body: { url } });
    expect(noAuth.status).toBe(422);
    expect(noAuth.body.error).toMatch(/git fetch failed/);
    // no half-created spider stays behind
    const list = await m.api('GET', '/spiders', { query: { keyword: 'secret' } });
    expect(list.body.data.list).toHaveLength(0);

    const created = await m.api('PUT', '/spiders', {
      body: { name: 'privy', git_url: url, git_username: 'alice', git_password: 's3cret-pw' },
    });
    expect(created.status, created.body.error).toBe(200);
    const id = created.body.data._id;
    const sync = await m.api('POST', `/spiders/${id}/git/sync`);
    expect(sync.status, sync.body.error).toBe(200);
    expect((await readFile(id, 'x.py')).data).toBe('secret = 1\n');
    const info = await m.api('GET', `/spiders/${id}/git`);
    const spider = await m.api('GET', `/spiders/${id}`);
    expect(JSON.stringify([sync.body, info.body, spider.body])).not.toContain('s3cret-pw');

    await m.api('POST', `/spiders/${id}`, { body: { git_password: 'wrong-password' } });
    const denied = await m.api('POST', `/spiders/${id}/git/sync`);
    expect(denied.status).toBe(422);
    expect(denied.body.error).not.toContain('wrong-password');
    expect((await m.api('GET', `/spiders/${id}/git`)).body.data.last_error).toMatch(/failed/);
  });

  it('refuses hostile URLs with 400', async () => {
    const hostile = [
      'ext::sh -c touch% /tmp/crawldeck-pwned',
      'ext::sh',
      'file:///etc',
      '/etc',
      './local/repo',
      '--upload-pack=touch /tmp/crawldeck-pwned',
      '-oProxyCommand=touch /tmp/crawldeck-pwned',
      'ssh://-oProxyCommand=touch/tmp/x/repo',
      'git@-oProxyCommand=x:repo',
      'fd::17',
      'git://127.0.0.1/repo.git',
      'ftp://example.com/repo.git',
      'https://example.com/repo.git\n--upload-pack=x',
    ];
    for (const url of hostile) {
      const r = await m.api('POST', '/spiders/import/github', { body: { url } });
      expect(r.status, url).toBe(400);
    }
    // the same check guards a URL stored on a spider
    const created = await m.api('PUT', '/spiders', {
      body: { name: 'hostile', git_url: 'ext::sh -c touch% /tmp/crawldeck-pwned' },
    });
    if (created.status === 200) {
      const r = await m.api('POST', `/spiders/${created.body.data._id}/git/sync`);
      expect(r.status).toBe(400);
    }
    expect(existsSync('/tmp/crawldeck-pwned')).toBe(false);
  });

  it('answers 400 for a spider without a Git URL and 404 for an unknown spider', async () => {
    const created = await m.api('PUT', '/spiders', { body: { name: 'plain' } });
    expect((await m.api('POST', `/spiders/${created.body.data._id}/git/sync`)).status).toBe(400);
    const missing = await m.api('POST', `/spiders/${'0'.repeat(23)}1/git/sync`);
    expect(missing.status, missing.body.error).toBe(404);
  });
});

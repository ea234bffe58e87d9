import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { startGitHttpServer, type GitHttpServer } from './support/git-http.ts';

/** Credentials written into a Git URL are kept as the spider's write-only credentials and shown to no one. */

const PASS = 's3cret-pw';
let m: TestMaster;
let srv: GitHttpServer;
let alice: string;
let bob: string;
let hostPort: string;

beforeAll(async () => {
  process.env.CRAWLDECK_GIT_AUTO_SYNC_S = '0';
  [m, srv] = await Promise.all([startTestMaster(), startGitHttpServer({ user: 'alice', pass: PASS })]);
  srv.createRepo('private/secret', { 'x.py': 'secret = 1\n' });
  hostPort = srv.url.replace(/^http:\/\//, '');
  [alice, bob] = await Promise.all([m.createUser('alice'), m.createUser('bob')]);
});
afterAll(async () => {
  await m?.close();
  await srv?.close();
});

const clean = () => `http://${hostPort}/private/secret.git`;
const withCredentials = (pass: string) => `http://alice:${pass}@${hostPort}/private/secret.git`;

describe('credentials in a Git URL', () => {
  let id: string;

  it('are split off on create: the URL is stored without them and sync authenticates with them', async () => {
    const created = await m.api('PUT', '/spiders', {
      token: alice,
      body: { name: 'public-git', is_public: true, git_url: withCredentials(PASS) },
    });
    expect(created.status, created.body.error).toBe(200);
    id = created.body.data._id;
    expect(created.body.data).toMatchObject({ git_url: clean(), git_username: 'alice', git_password_set: true });
    expect(JSON.stringify(created.body)).not.toContain(PASS);
    const sync = await m.api('POST', `/spiders/${id}/git/sync`, { token: alice });
    expect(sync.status, sync.body.error).toBe(200);
    expect((await m.api('GET', `/spiders/${id}/file`, { token: alice, query: { path: 'x.py' } })).body.data).toBe(
      'secret = 1\n',
    );
  });

  it('are shown to no other user: spider list, detail, Git state, tasks', async () => {
    const answers = await Promise.all([
      m.api('GET', '/spiders', { token: bob, query: { page_size: 1000 } }),
      m.api('GET', `/spiders/${id}`, { token: bob }),
      m.api('GET', `/spiders/${id}/git`, { token: bob }),
      m.api('GET', '/tasks', { token: bob }),
    ]);
    for (const a of answers) expect(a.status, a.body.error).toBe(200);
    expect(answers[0].body.data.list.map((s: { name: string }) => s.name)).toContain('public-git');
    expect(answers[1].body.data.git_url).toBe(clean());
    expect(answers[2].body.data.remote).toBe(clean());
    expect(JSON.stringify(answers.map((a) => a.body))).not.toContain(PASS);
  });

  it('are split off on edit; a failing sync says why without the password', async () => {
    const edited = await m.api('POST', `/spiders/${id}`, {
      token: alice,
      body: { git_url: withCredentials('wr0ng-pw') },
    });
    expect(edited.status, edited.body.error).toBe(200);
    expect(edited.body.data.git_url).toBe(clean());
    const denied = await m.api('POST', `/spiders/${id}/git/sync`, { token: alice });
    expect(denied.status).toBe(422);
    const info = await m.api('GET', `/spiders/${id}/git`, { token: bob });
    expect(info.body.data.last_error).toMatch(/failed/);
    expect(JSON.stringify([denied.body, info.body])).not.toMatch(/wr0ng-pw|s3cret-pw/);
  });

  it('are split off on import and used for the first clone', async () => {
    const imported = await m.api('POST', '/spiders/import/github', {
      token: alice,
      body: { url: withCredentials(PASS), name: 'imported' },
    });
    expect(imported.status, imported.body.error).toBe(200);
    expect(imported.body.data).toMatchObject({ git_url: clean(), git_username: 'alice', git_password_set: true });
    expect(JSON.stringify(imported.body)).not.toContain(PASS);
    const listed = await m.api('GET', '/spiders', { token: bob, query: { page_size: 1000 } });
    expect(JSON.stringify(listed.body)).not.toContain(PASS);
  });

  it('stored in the URL by an older version are never shown and still work', async () => {
    await m.master.ctx.store.db
      .updateTable('spiders')
      .set({ git_url: withCredentials(PASS), git_password_enc: '' })
      .where('id', '=', id)
      .execute();
    const detail = await m.api('GET', `/spiders/${id}`, { token: alice });
    expect(detail.body.data.git_url).toBe(clean());
    const sync = await m.api('POST', `/spiders/${id}/git/sync`, { token: alice });
    expect(sync.status, sync.body.error).toBe(200);
    expect(
      JSON.stringify([detail.body, sync.body, (await m.api('GET', `/spiders/${id}/git`, { token: alice })).body]),
    ).not.toContain(PASS);
  });
});

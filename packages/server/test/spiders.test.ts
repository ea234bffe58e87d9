import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { counts, makeZip, multipart } from './spider-helpers.ts';
import { decryptSecret } from '../src/crypto/secrets.ts';
import { registerSpiderDeleteGuard } from '../src/features/spiders/spiders.service.ts';

let m: TestMaster;
let alice: string;
let bob: string;
const blocked = new Set<string>();
registerSpiderDeleteGuard(async (_db, id) => (blocked.has(id) ? 'a task of this spider is running' : undefined));

beforeAll(async () => {
  m = await startTestMaster();
  alice = await m.createUser('alice');
  bob = await m.createUser('bob');
});
afterAll(async () => {
  await m?.close();
});

const create = (body: Record<string, unknown>, token?: string) => m.api('PUT', '/spiders', { body, token });

describe('spiders: create, read, update', () => {
  it('creates an empty spider with the defaults and reads it back', async () => {
    const r = await create({ name: 'news', cmd: 'python main.py' });
    expect(r.status).toBe(200);
    const s = r.body.data;
    expect(s).toMatchObject({
      name: 'news',
      display_name: 'news',
      type: 'customized',
      cmd: 'python main.py',
      col: 'results_news',
      project_id: null,
      is_public: false,
      is_scrapy: false,
      is_dedup: false,
      dedup_method: 'ignore',
      envs: [],
      config: {},
      retries: 0,
      git_password_set: false,
      owner: 'admin',
    });
    expect(s._id).toMatch(/^[0-9a-f]{24}$/);
    const got = await m.api('GET', `/spiders/${s._id}`);
    expect(got.body.data).toEqual(s);
  });

  it('validates input with clear 400s and stores nothing', async () => {
    const before = await counts(m);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /name/],
      [{ name: '  ' }, /name is required/],
      [{ name: 'a/b' }, /slashes/],
      [{ name: 'd1', is_dedup: true }, /^dedupe field is required when dedupe is on$/],
      [{ name: 'd2', is_dedup: true, dedup_field: '  ' }, /^dedupe field is required when dedupe is on$/],
      [{ name: 'r', retries: 6 }, /retries/],
      [{ name: 't', type: 'other' }, /type/],
      [{ name: 'e', envs: [{ name: '1BAD', value: 'x' }] }, /environment variable name "1BAD" is invalid/],
      [
        {
          name: 'e2',
          envs: [
            { name: 'A', value: '1' },
            { name: 'A', value: '2' },
          ],
        },
        /twice/,
      ],
      [{ name: 'p', project_id: 'aaaaaaaaaaaaaaaaaaaaaaaa' }, /project .* does not exist/],
      [{ name: 'm', dedup_method: 'merge' }, /dedup_method/],
    ];
    for (const [body, msg] of cases) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toMatch(msg);
    }
    expect(await counts(m)).toEqual(before);
  });

  it('keeps names unique per owner (409) but lets another owner reuse one', async () => {
    expect((await create({ name: 'dup' })).status).toBe(200);
    const again = await create({ name: 'dup' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('a spider named "dup" already exists for this owner');
    expect((await create({ name: 'dup' }, alice)).status).toBe(200);
    const rows = await m.master.store.db.selectFrom('spiders').select('owner_id').where('name', '=', 'dup').execute();
    expect(rows).toHaveLength(2);
  });

  it('accepts 0/1 for booleans, stores envs/config JSON, and dedupe with a field', async () => {
    const r = await create({
      name: 'full',
      display_name: 'Full',
      type: 'configurable',
      is_public: 1,
      is_dedup: true,
      dedup_field: 'url',
      dedup_method: 'overwrite',
      envs: [{ name: 'TOKEN', value: 'x' }],
      config: { start_url: 'https://e.x' },
      retries: 5,
      col: 'my_col',
      src: 'crawler/full',
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      display_name: 'Full',
      type: 'configurable',
      is_public: true,
      is_dedup: true,
      dedup_field: 'url',
      dedup_method: 'overwrite',
      envs: [{ name: 'TOKEN', value: 'x' }],
      config: { start_url: 'https://e.x' },
      retries: 5,
      col: 'my_col',
      src: 'crawler/full',
    });
  });

  it('keeps the Git password write-only and encrypted at rest', async () => {
    const r = await create({
      name: 'gitty',
      git_url: 'https://git.example/x.git',
      git_branch: 'main',
      git_username: 'u',
      git_password: 's3cret-pw',
    });
    expect(r.status).toBe(200);
    expect(r.body.data.git_password_set).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain('s3cret-pw');
    expect(r.body.data).not.toHaveProperty('git_password');
    const id = r.body.data._id;
    const row = await m.master.store.db
      .selectFrom('spiders')
      .select('git_password_enc')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.git_password_enc).not.toContain('s3cret-pw');
    expect(decryptSecret(m.dataDir, row.git_password_enc)).toBe('s3cret-pw');
    expect(statSync(path.join(m.dataDir, 'secret-key')).mode & 0o777).toBe(0o600);
    // '' (a form that never saw the password) keeps it; a value replaces it; null clears it.
    await m.api('POST', `/spiders/${id}`, { body: { git_password: '', git_branch: 'dev' } });
    const kept = await m.master.store.db
      .selectFrom('spiders')
      .select('git_password_enc')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(decryptSecret(m.dataDir, kept.git_password_enc)).toBe('s3cret-pw');
    await m.api('POST', `/spiders/${id}`, { body: { git_password: 'other-pw' } });
    const changed = await m.master.store.db
      .selectFrom('spiders')
      .select('git_password_enc')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(decryptSecret(m.dataDir, changed.git_password_enc)).toBe('other-pw');
    const cleared = await m.api('POST', `/spiders/${id}`, { body: { git_password: null } });
    expect(cleared.body.data.git_password_set).toBe(false);
    expect(JSON.stringify((await m.api('GET', '/spiders', { query: { keyword: 'gitty' } })).body)).not.toMatch(
      /other-pw|git_password_enc/,
    );
  });

  it('updates a spider, refusing duplicate names and dedupe without field', async () => {
    const id = (await create({ name: 'upd' })).body.data._id;
    const r = await m.api('POST', `/spiders/${id}`, {
      body: { display_name: 'Updated', cmd: 'scrapy crawl x', is_public: true, envs: [{ name: 'A', value: '1' }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      display_name: 'Updated',
      cmd: 'scrapy crawl x',
      is_public: true,
      envs: [{ name: 'A', value: '1' }],
      name: 'upd',
    });
    const before = await m.master.store.db
      .selectFrom('spiders')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect((await m.api('POST', `/spiders/${id}`, { body: { name: 'news' } })).status).toBe(409);
    const dd = await m.api('POST', `/spiders/${id}`, { body: { is_dedup: true } });
    expect(dd.status).toBe(400);
    expect(dd.body.error).toBe('dedupe field is required when dedupe is on');
    expect((await m.api('POST', `/spiders/${id}`, { body: { retries: -1 } })).status).toBe(400);
    expect(
      await m.master.store.db.selectFrom('spiders').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    ).toEqual(before);
    expect((await m.api('GET', '/spiders/aaaaaaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
    expect((await m.api('POST', '/spiders/aaaaaaaaaaaaaaaaaaaaaaaa', { body: { cmd: 'x' } })).status).toBe(404);
  });
});

describe('spiders: who sees and changes what', () => {
  let alicePrivate: string;
  let alicePublic: string;
  beforeAll(async () => {
    alicePrivate = (await create({ name: 'a-private' }, alice)).body.data._id;
    alicePublic = (await create({ name: 'a-public', is_public: true }, alice)).body.data._id;
    await create({ name: 'b-own' }, bob);
  });

  it('shows a normal user own and public spiders, an admin all', async () => {
    const names = async (token: string) =>
      (
        (await m.api('GET', '/spiders', { token, query: { page_size: 99999999 } })).body.data.list as { name: string }[]
      ).map((s) => s.name);
    const bobSees = await names(bob);
    expect(bobSees).toContain('b-own');
    expect(bobSees).toContain('a-public');
    expect(bobSees).not.toContain('a-private');
    expect(bobSees).not.toContain('news'); // admin's private spider
    const adminSees = await names(m.adminToken);
    expect(adminSees).toEqual(expect.arrayContaining(['a-private', 'a-public', 'b-own', 'news']));
    expect((await m.api('GET', `/spiders/${alicePublic}`, { token: bob })).status).toBe(200);
    // Another user's private spider answers as an unknown id.
    expect((await m.api('GET', `/spiders/${alicePrivate}`, { token: bob })).status).toBe(404);
  });

  it("refuses a normal user changing or deleting another's spider (403, 404 when private) and changes nothing", async () => {
    const snapshot = async () =>
      m.master.store.db.selectFrom('spiders').selectAll().where('owner_id', '!=', '').orderBy('id').execute();
    const before = await snapshot();
    for (const [id, refused] of [
      [alicePrivate, 404],
      [alicePublic, 403],
    ] as const) {
      const upd = await m.api('POST', `/spiders/${id}`, { token: bob, body: { cmd: 'rm -rf /' } });
      expect(upd.status).toBe(refused);
      expect((await m.api('DELETE', `/spiders/${id}`, { token: bob })).status).toBe(refused);
      expect(
        (
          await multipart(
            m,
            'POST',
            `/spiders/${id}/upload`,
            {},
            await makeZip([{ name: 'main.py', content: 'x' }]),
            bob,
          )
        ).status,
      ).toBe(refused);
    }
    expect(await snapshot()).toEqual(before);
    // an admin may change anyone's spider
    expect((await m.api('POST', `/spiders/${alicePrivate}`, { body: { cmd: 'python run.py' } })).body.data.cmd).toBe(
      'python run.py',
    );
  });
});

describe('spiders: list', () => {
  beforeAll(async () => {
    const proj = await m.api('PUT', '/projects', { body: { name: 'list-proj' } });
    for (let i = 0; i < 5; i++)
      await create({
        name: `lst-${i}`,
        display_name: `Listed ${i}`,
        type: i % 2 ? 'configurable' : 'customized',
        project_id: i < 2 ? proj.body.data._id : undefined,
      });
  });

  it('pages, filters by keyword/project/type, sorts, and returns data.list, data.total and total', async () => {
    const all = await m.api('GET', '/spiders', { query: { page_num: 1, page_size: 99999999, keyword: 'lst-' } });
    expect(all.status).toBe(200);
    expect(all.body.data.total).toBe(5);
    expect(all.body.total).toBe(5);
    expect(all.body.data.list.map((s: { name: string }) => s.name)).toEqual([
      'lst-4',
      'lst-3',
      'lst-2',
      'lst-1',
      'lst-0',
    ]);
    const page2 = await m.api('GET', '/spiders', {
      query: { page_num: 2, page_size: 2, keyword: 'LST', sort_key: 'name', sort_direction: 'asc' },
    });
    expect(page2.body.data.list.map((s: { name: string }) => s.name)).toEqual(['lst-2', 'lst-3']);
    expect(page2.body.total).toBe(5);
    const byDisplay = await m.api('GET', '/spiders', { query: { keyword: 'listed 3' } });
    expect(byDisplay.body.data.list.map((s: { name: string }) => s.name)).toEqual(['lst-3']);
    const projectId = (await m.api('GET', '/projects', { query: { keyword: 'list-proj' } })).body.data[0]._id;
    const inProj = await m.api('GET', '/spiders', { query: { project_id: projectId, page_size: 100 } });
    expect(inProj.body.data.list.map((s: { name: string }) => s.name).sort()).toEqual(['lst-0', 'lst-1']);
    const unassigned = await m.api('GET', '/spiders', {
      query: { project_id: '000000000000000000000000', keyword: 'lst-' },
    });
    expect(unassigned.body.total).toBe(3);
    const configurable = await m.api('GET', '/spiders', { query: { type: 'configurable', keyword: 'lst-' } });
    expect(configurable.body.data.list.map((s: { name: string }) => s.name).sort()).toEqual(['lst-1', 'lst-3']);
    const desc = await m.api('GET', '/spiders', {
      query: { keyword: 'lst-', sort_key: 'name', sort_direction: 'descending' },
    });
    expect(desc.body.data.list[0].name).toBe('lst-4');
    // LIKE wildcards in the keyword are literal
    expect((await m.api('GET', '/spiders', { query: { keyword: 'lst%' } })).body.total).toBe(0);
    expect((await m.api('GET', '/spiders', { query: { page_size: 100000000 } })).status).toBe(400);
    expect((await m.api('GET', '/spiders', { query: { page_num: 0 } })).status).toBe(400);
  });
});

describe('spiders: delete', () => {
  it('deletes a spider with its files and unused blobs, emitting spider.deleted', async () => {
    const r = await multipart(
      m,
      'PUT',
      '/spiders',
      { name: 'doomed' },
      await makeZip([{ name: 'only-here.py', content: 'doomed-unique-content' }]),
    );
    const id = r.body.data._id;
    const events: string[] = [];
    m.master.ctx.events.on('spider.deleted', (x: string) => events.push(x));
    const before = await counts(m);
    const del = await m.api('DELETE', `/spiders/${id}`);
    expect(del.status).toBe(200);
    expect(events).toEqual([id]);
    const after = await counts(m);
    expect(after.spiders).toBe(before.spiders - 1);
    expect(after.files).toBe(before.files - 1);
    expect(after.blobs).toBe(before.blobs - 1);
    expect((await m.api('GET', `/spiders/${id}`)).status).toBe(404);
    expect((await m.api('DELETE', `/spiders/${id}`)).status).toBe(404);
  });

  it('refuses with 409 and the reason while a guard objects, deleting nothing', async () => {
    const id = (
      await multipart(m, 'PUT', '/spiders', { name: 'busy' }, await makeZip([{ name: 'a.py', content: 'busy' }]))
    ).body.data._id;
    blocked.add(id);
    const before = await counts(m);
    const r = await m.api('DELETE', `/spiders/${id}`);
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('the spider cannot be deleted: a task of this spider is running');
    expect(await counts(m)).toEqual(before);
    blocked.delete(id);
    expect((await m.api('DELETE', `/spiders/${id}`)).status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { counts } from './spider-helpers.ts';

let m: TestMaster;
let bob: string;
beforeAll(async () => {
  m = await startTestMaster();
  bob = await m.createUser('bob');
});
afterAll(async () => {
  await m?.close();
});

const spider = async (name: string, token?: string, extra: Record<string, unknown> = {}) =>
  (await m.api('PUT', '/spiders', { token, body: { name, ...extra } })).body.data._id as string;

describe('projects', () => {
  it('creates a project with defaults; tag and tags carry the same list', async () => {
    const r = await m.api('PUT', '/projects', {
      body: { name: 'Alpha', description: 'first', tag: ['news', ' daily ', 'news', ''] },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      name: 'Alpha',
      description: 'first',
      tags: ['daily', 'news'],
      tag: ['daily', 'news'],
      spiders: [],
      spider_count: 0,
    });
    expect(r.body.data._id).toMatch(/^[0-9a-f]{24}$/);
    const b = await m.api('PUT', '/projects', { body: { name: 'Beta', tags: ['news'] } });
    expect(b.body.data).toMatchObject({ description: '', tags: ['news'], tag: ['news'] });
    const c = await m.api('PUT', '/projects', { token: bob, body: { name: 'Gamma' } });
    expect(c.body.data.tags).toEqual([]);
  });

  it('validates and refuses duplicates, storing nothing', async () => {
    const before = await counts(m);
    expect((await m.api('PUT', '/projects', { body: {} })).status).toBe(400);
    expect((await m.api('PUT', '/projects', { body: { name: '   ' } })).status).toBe(400);
    expect((await m.api('PUT', '/projects', { body: { name: 'x', tags: [{}] } })).status).toBe(400);
    const dup = await m.api('PUT', '/projects', { body: { name: 'Alpha' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('a project named "Alpha" already exists');
    expect(await counts(m)).toEqual(before);
  });

  it('lists with keyword and tag filters, and counts tags', async () => {
    const all = await m.api('GET', '/projects');
    expect(all.status).toBe(200);
    expect(all.body.data.map((p: { name: string }) => p.name)).toEqual(['Gamma', 'Beta', 'Alpha']);
    expect(all.body.total).toBe(3);
    const news = await m.api('GET', '/projects', { query: { tag: 'news' } });
    expect(news.body.data.map((p: { name: string }) => p.name)).toEqual(['Beta', 'Alpha']);
    const kw = await m.api('GET', '/projects', { query: { keyword: 'FIRST' } });
    expect(kw.body.data.map((p: { name: string }) => p.name)).toEqual(['Alpha']);
    const tags = await m.api('GET', '/projects/tags');
    expect(tags.body.data).toEqual([
      { tag: 'news', count: 2 },
      { tag: 'daily', count: 1 },
    ]);
  });

  it('updates name, description and tags (either field)', async () => {
    const id = (await m.api('GET', '/projects', { query: { keyword: 'Beta' } })).body.data[0]._id;
    const r = await m.api('POST', `/projects/${id}`, { body: { description: 'second', tag: ['weekly'] } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'Beta', description: 'second', tags: ['weekly'], tag: ['weekly'] });
    const r2 = await m.api('POST', `/projects/${id}`, { body: { name: 'Beta 2', tags: [] } });
    expect(r2.body.data).toMatchObject({ name: 'Beta 2', tags: [] });
    expect((await m.api('POST', `/projects/${id}`, { body: { name: 'Alpha' } })).status).toBe(409);
    expect((await m.api('POST', '/projects/aaaaaaaaaaaaaaaaaaaaaaaa', { body: { name: 'z' } })).status).toBe(404);
  });

  it('assigns spiders with /spiders-set-projects and lists them per project', async () => {
    const alpha = (await m.api('GET', '/projects', { query: { keyword: 'Alpha' } })).body.data[0]._id;
    const s1 = await spider('p-one');
    const s2 = await spider('p-two');
    const r = await m.api('POST', '/spiders-set-projects', { body: { project_id: alpha, spider_ids: [s1, s2] } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ updated: 2 });
    const p = (await m.api('GET', '/projects', { query: { keyword: 'Alpha' } })).body.data[0];
    expect(p.spiders.sort()).toEqual([s1, s2].sort());
    expect(p.spider_count).toBe(2);
    expect((await m.api('GET', `/spiders/${s1}`)).body.data.project_id).toBe(alpha);
    // unassign one
    await m.api('POST', '/spiders-set-projects', {
      body: { project_id: '000000000000000000000000', spider_ids: [s2] },
    });
    expect((await m.api('GET', `/spiders/${s2}`)).body.data.project_id).toBeNull();
    // unknown project / spider: 404, nothing changed
    expect(
      (
        await m.api('POST', '/spiders-set-projects', {
          body: { project_id: 'aaaaaaaaaaaaaaaaaaaaaaaa', spider_ids: [s2] },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await m.api('POST', '/spiders-set-projects', {
          body: { project_id: alpha, spider_ids: [s2, 'bbbbbbbbbbbbbbbbbbbbbbbb'] },
        })
      ).status,
    ).toBe(404);
    expect((await m.api('GET', `/spiders/${s2}`)).body.data.project_id).toBeNull();
  });

  it("refuses a normal user moving another's spider (404 when private) or changing another's project (403), changing nothing", async () => {
    const alpha = (await m.api('GET', '/projects', { query: { keyword: 'Alpha' } })).body.data[0]._id;
    const gamma = (await m.api('GET', '/projects', { query: { keyword: 'Gamma' } })).body.data[0]._id;
    const adminSpider = await spider('admin-owned');
    const bobSpider = await spider('bob-owned', bob);
    const before = await m.master.store.db.selectFrom('spiders').select(['id', 'project_id']).orderBy('id').execute();
    const mixed = await m.api('POST', '/spiders-set-projects', {
      token: bob,
      body: { project_id: gamma, spider_ids: [bobSpider, adminSpider] },
    });
    // The administrator's spider is private: to bob it is an unknown id.
    expect(mixed.status).toBe(404);
    expect(mixed.body.error).toBe(`spider ${adminSpider} not found`);
    expect(await m.master.store.db.selectFrom('spiders').select(['id', 'project_id']).orderBy('id').execute()).toEqual(
      before,
    );
    expect((await m.api('POST', `/projects/${alpha}`, { token: bob, body: { name: 'hijack' } })).status).toBe(403);
    expect((await m.api('DELETE', `/projects/${alpha}`, { token: bob })).status).toBe(403);
    expect((await m.api('GET', '/projects', { query: { keyword: 'Alpha' } })).body.data[0].name).toBe('Alpha');
    // own spider into any project is fine; bob sees only the spiders he may see in project lists
    expect(
      (
        await m.api('POST', '/spiders-set-projects', {
          token: bob,
          body: { project_id: alpha, spider_ids: [bobSpider] },
        })
      ).status,
    ).toBe(200);
    const seenByBob = (await m.api('GET', '/projects', { token: bob, query: { keyword: 'Alpha' } })).body.data[0];
    expect(seenByBob.spiders).toEqual([bobSpider]);
    // bob changes his own project
    expect((await m.api('POST', `/projects/${gamma}`, { token: bob, body: { description: 'mine' } })).status).toBe(200);
  });

  it('deletes a project, leaving its spiders unassigned', async () => {
    const alpha = (await m.api('GET', '/projects', { query: { keyword: 'Alpha' } })).body.data[0];
    expect(alpha.spider_count).toBeGreaterThan(0);
    const r = await m.api('DELETE', `/projects/${alpha._id}`);
    expect(r.status).toBe(200);
    for (const sid of alpha.spiders) expect((await m.api('GET', `/spiders/${sid}`)).body.data.project_id).toBeNull();
    expect(
      await m.master.store.db.selectFrom('project_tags').selectAll().where('project_id', '=', alpha._id).execute(),
    ).toEqual([]);
    expect(
      (await m.api('GET', '/projects/tags')).body.data.find((t: { tag: string }) => t.tag === 'daily'),
    ).toBeUndefined();
    expect((await m.api('DELETE', `/projects/${alpha._id}`)).status).toBe(404);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
let normal: string;
beforeAll(async () => {
  m = await startTestMaster();
  normal = await m.createUser('sam');
});
afterAll(async () => {
  await m?.close();
});

const HEADER = 'domain,main_category,category,rank,name,description';

async function upload(csv: string, token: string | null = m.adminToken) {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'sites.csv');
  const res = await fetch(`${m.url}/api/sites/import`, {
    method: 'POST',
    headers: token ? { authorization: token } : {},
    body: form,
  });
  return { status: res.status, body: (await res.json()) as { data: any; error?: string } };
}

describe('sites', () => {
  it('imports a CSV (admin only) and refuses a bad one without writing anything', async () => {
    const rows = [HEADER];
    for (let i = 1; i <= 25; i++) {
      const main = i <= 15 ? 'News' : 'Tech';
      const cat = i % 2 ? 'World' : 'Local';
      rows.push(`site${i}.example.com,${main},${cat},${i},Site ${i},"Description, number ${i}"`);
    }
    rows.push('unranked.org,Tech,Local,,Unranked,crawl me 100%');
    expect((await upload(rows.join('\n'), normal)).status).toBe(403);
    const bad = await upload(`${rows.join('\n')}\nnot a domain,News,World,1,x,y\nsite1.example.com,News,World,2,dup,`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/line 28: domain/);
    expect(bad.body.error).toMatch(/line 29: domain site1.example.com already appears on line 2/);
    expect(await m.master.store.db.selectFrom('sites').selectAll().execute()).toEqual([]);
    expect((await upload('domain,name\na.org,A')).status).toBe(400);

    const good = await upload(rows.join('\r\n') + '\r\n');
    expect(good.status).toBe(200);
    expect(good.body.data).toEqual({ imported: 26, created: 26, updated: 0 });
    // Re-import updates by domain.
    const again = await upload(
      `${HEADER}\nsite1.example.com,News,World,1,Site One,updated\nnew.example.net,Shop,,,New,`,
    );
    expect(again.body.data).toEqual({ imported: 2, created: 1, updated: 1 });
  });

  it('lists with pagination (default 10), rank order, keyword and category filters', async () => {
    const first = await m.api('GET', '/sites', { token: normal });
    expect(first.status).toBe(200);
    expect(first.body.data.total_count).toBe(27);
    expect(first.body.data.items).toHaveLength(10);
    expect(first.body.data.items[0]).toMatchObject({ domain: 'site1.example.com', name: 'Site One', rank: 1 });
    const last = await m.api('GET', '/sites', { query: { page_num: 3, page_size: 10 } });
    expect(last.body.data.items.map((s: { domain: string }) => s.domain)).toEqual([
      'site21.example.com',
      'site22.example.com',
      'site23.example.com',
      'site24.example.com',
      'site25.example.com',
      'new.example.net',
      'unranked.org',
    ]);
    const news = await m.api('GET', '/sites', { query: { filter: { main_category: 'News' }, page_size: 100 } });
    expect(news.body.data.total_count).toBe(15);
    const newsWorld = await m.api('GET', '/sites', {
      query: { filter: { main_category: 'News', category: 'World' }, page_size: 100 },
    });
    expect(newsWorld.body.data.total_count).toBe(8);
    expect(newsWorld.body.data.items.every((s: { category: string }) => s.category === 'World')).toBe(true);
    const kw = await m.api('GET', '/sites', { query: { keyword: 'SITE 2', page_size: 100 } });
    expect(kw.body.data.items.map((s: { domain: string }) => s.domain)).toEqual([
      'site2.example.com',
      'site20.example.com',
      'site21.example.com',
      'site22.example.com',
      'site23.example.com',
      'site24.example.com',
      'site25.example.com',
    ]);
    // %, _ are literal.
    expect((await m.api('GET', '/sites', { query: { keyword: '100%' } })).body.data.total_count).toBe(1);
    expect((await m.api('GET', '/sites', { query: { keyword: '_' } })).body.data.total_count).toBe(0);
    expect((await m.api('GET', '/sites', { query: { filter: 'not json' } })).status).toBe(400);
    expect((await m.api('GET', '/sites', { query: { filter: { main_category: 3 } } })).status).toBe(400);
  });

  it('lists categories and edits a site category', async () => {
    expect((await m.api('GET', '/sites/get/get_main_category_list')).body.data.items).toEqual(['News', 'Shop', 'Tech']);
    expect(
      (await m.api('GET', '/sites/get/get_category_list', { query: { main_category: 'Tech' } })).body.data.items,
    ).toEqual(['Local', 'World']);
    expect(
      (await m.api('GET', '/sites/get/get_category_list', { query: { main_category: 'Shop' } })).body.data.items,
    ).toEqual([]);
    const site = (await m.api('GET', '/sites', { query: { keyword: 'site3.' } })).body.data.items[0];
    const r = await m.api('POST', `/sites/${site._id}`, { token: normal, body: { category: 'Politics' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ domain: 'site3.example.com', category: 'Politics' });
    expect(
      (await m.api('GET', '/sites/get/get_category_list', { query: { main_category: 'News' } })).body.data.items,
    ).toContain('Politics');
    expect((await m.api('POST', '/sites/000000000000000000000000', { body: { category: 'x' } })).status).toBe(404);
    expect((await m.api('GET', '/sites', { token: null })).status).toBe(401);
  });
});

describe('collected URLs', () => {
  it('inserts, queries by region with paging, updates and deletes', async () => {
    expect((await m.api('POST', '/insertUrl', { body: { url: 'ftp://x.org', regionCode: 'US' } })).status).toBe(400);
    expect(
      (await m.api('POST', '/insertUrl', { body: { url: 'https://x.org', regionCode: 'not a region' } })).status,
    ).toBe(400);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await m.api('POST', '/insertUrl', {
        body: { url: `https://example.com/p/${i}`, regionCode: i < 8 ? 'us' : 'CN', title: `Page ${i}` },
      });
      expect(r.status).toBe(200);
      ids.push(r.body.data._id);
    }
    const us = await m.api('GET', '/queryUrl', { query: { page: 1, limited: 5, regionCode: 'US' } });
    expect(us.body).toMatchObject({ totalCount: 8, total: 8 });
    expect(us.body.data).toHaveLength(5);
    expect(us.body.data[0]).toMatchObject({
      regionCode: 'US',
      url: expect.stringMatching(/^https:\/\/example.com\/p\//),
    });
    expect(
      (await m.api('GET', '/queryUrl', { query: { page: 2, limited: 5, regionCode: 'US' } })).body.data,
    ).toHaveLength(3);
    expect((await m.api('GET', '/queryUrl')).body.total).toBe(12);

    const upd = await m.api('POST', '/updateUrl', { body: { id: ids[0], title: 'Renamed', regionCode: 'jp' } });
    expect(upd.body.data).toMatchObject({ title: 'Renamed', regionCode: 'JP', url: 'https://example.com/p/0' });
    expect((await m.api('POST', '/updateUrl', { body: { id: ids[0], url: 'nope' } })).status).toBe(400);
    expect((await m.api('POST', '/updateUrl', { body: { id: '000000000000000000000000', title: 'x' } })).status).toBe(
      404,
    );
    expect((await m.api('GET', '/queryUrl', { query: { regionCode: 'JP' } })).body.data[0].title).toBe('Renamed');

    expect((await m.api('GET', '/deleteUrl', { query: { id: ids[1] } })).status).toBe(200);
    expect((await m.api('GET', '/deleteUrl', { query: { id: ids[1] } })).status).toBe(404);
    expect((await m.api('GET', '/queryUrl')).body.total).toBe(11);
  });
});

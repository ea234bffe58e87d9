import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { counts, fileSnapshot, makeZip, multipart } from './spider-helpers.ts';

let m: TestMaster;
let id: string;
let bob: string;
let alice: string;
let alicePublic: string;
let alicePrivate: string;

beforeAll(async () => {
  m = await startTestMaster();
  bob = await m.createUser('bob');
  alice = await m.createUser('alice');
  const r = await multipart(
    m,
    'PUT',
    '/spiders',
    { name: 'files' },
    await makeZip([
      { name: 'main.py', content: 'print("main")\n' },
      { name: 'lib/util.py', content: 'X = 1\n' },
      { name: 'lib/deep/a.txt', content: 'a' },
      { name: 'data.bin', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff]) },
      { name: 'latin1.txt', content: Buffer.from([0x63, 0x61, 0x66, 0xe9]) },
      { name: 'zeta.py', content: 'z' },
    ]),
  );
  id = r.body.data._id;
  alicePublic = (await m.api('PUT', '/spiders', { token: alice, body: { name: 'pub', is_public: true } })).body.data
    ._id;
  alicePrivate = (await m.api('PUT', '/spiders', { token: alice, body: { name: 'priv' } })).body.data._id;
  await m.api('POST', `/spiders/${alicePublic}/file`, { token: alice, body: { path: 'main.py', content: 'public' } });
  await m.api('POST', `/spiders/${alicePrivate}/file`, { token: alice, body: { path: 'main.py', content: 'private' } });
});
afterAll(async () => {
  await m?.close();
});

const names = (r: { body: { data: { name: string; is_dir: boolean }[] } }) =>
  r.body.data.map((e) => `${e.is_dir ? 'd' : 'f'}:${e.name}`);

describe('spider files: listing', () => {
  it('lists a folder: directories first, then names descending', async () => {
    for (const p of [undefined, '', '/', '.']) {
      const r = await m.api('GET', `/spiders/${id}/dir`, { query: { path: p } });
      expect(r.status).toBe(200);
      expect(names(r)).toEqual(['d:lib', 'f:zeta.py', 'f:main.py', 'f:latin1.txt', 'f:data.bin']);
    }
    const lib = await m.api('GET', `/spiders/${id}/dir`, { query: { path: 'lib' } });
    expect(names(lib)).toEqual(['d:deep', 'f:util.py']);
    expect(lib.body.data[1]).toMatchObject({ name: 'util.py', path: 'lib/util.py', is_dir: false, size: 6 });
    expect(lib.body.data[1].update_ts).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await m.api('GET', `/spiders/${id}/dir`, { query: { path: 'nope' } })).status).toBe(404);
    expect((await m.api('GET', `/spiders/${id}/dir`, { query: { path: 'main.py' } })).status).toBe(400);
  });

  it('answers the nested tree', async () => {
    const r = await m.api('GET', `/spiders/${id}/file/tree`);
    expect(r.status).toBe(200);
    const t = r.body.data;
    expect(t).toMatchObject({ name: '', path: '', is_dir: true });
    expect(t.children.map((c: { name: string }) => c.name)).toEqual([
      'lib',
      'zeta.py',
      'main.py',
      'latin1.txt',
      'data.bin',
    ]);
    const lib = t.children[0];
    expect(lib.children.map((c: { path: string }) => c.path)).toEqual(['lib/deep', 'lib/util.py']);
    expect(lib.children[0].children).toEqual([
      expect.objectContaining({ path: 'lib/deep/a.txt', is_dir: false, size: 1 }),
    ]);
  });
});

describe('spider files: read and write', () => {
  it('reads text, refuses binary as text, downloads raw', async () => {
    const r = await m.api('GET', `/spiders/${id}/file`, { query: { path: 'main.py' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toBe('print("main")\n');
    for (const p of ['data.bin', 'latin1.txt']) {
      const bin = await m.api('GET', `/spiders/${id}/file`, { query: { path: p } });
      expect(bin.status).toBe(415);
      expect(bin.body.error).toBe('binary file cannot be opened as text');
    }
    const raw = await fetch(new URL(`/api/spiders/${id}/file?path=data.bin&raw=1`, m.url), {
      headers: { authorization: m.adminToken },
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-disposition')).toContain('data.bin');
    expect([...new Uint8Array(await raw.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff]);
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'missing.py' } })).status).toBe(404);
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'lib' } })).status).toBe(400);
  });

  it('saves a file (creating it and its folders), and overwrites it', async () => {
    const s = await m.api('POST', `/spiders/${id}/file`, { body: { path: 'new/sub/x.py', content: 'v1 ✓' } });
    expect(s.status).toBe(200);
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'new/sub/x.py' } })).body.data).toBe('v1 ✓');
    expect(names(await m.api('GET', `/spiders/${id}/dir`, { query: { path: 'new' } }))).toEqual(['d:sub']);
    await m.api('POST', `/spiders/${id}/file`, { body: { path: 'new/sub/x.py', content: 'v2' } });
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'new/sub/x.py' } })).body.data).toBe('v2');
    // a folder cannot be written as a file; a file cannot be a folder
    expect((await m.api('POST', `/spiders/${id}/file`, { body: { path: 'new/sub', content: 'x' } })).status).toBe(409);
    expect(
      (await m.api('POST', `/spiders/${id}/file`, { body: { path: 'main.py/inner.py', content: 'x' } })).status,
    ).toBe(409);
    // normalised: ./a//b → a/b
    await m.api('POST', `/spiders/${id}/file`, { body: { path: './new//sub/./y.py', content: 'y' } });
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'new/sub/y.py' } })).body.data).toBe('y');
  });

  it('creates an empty file (409 when it exists) and a folder (409 when it exists)', async () => {
    expect((await m.api('PUT', `/spiders/${id}/file`, { body: { path: 'empty.py' } })).status).toBe(200);
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'empty.py' } })).body.data).toBe('');
    const again = await m.api('PUT', `/spiders/${id}/file`, { body: { path: 'empty.py' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already exists/);
    expect((await m.api('PUT', `/spiders/${id}/dir`, { body: { path: 'made/here' } })).status).toBe(200);
    expect(names(await m.api('GET', `/spiders/${id}/dir`, { query: { path: 'made' } }))).toEqual(['d:here']);
    expect((await m.api('PUT', `/spiders/${id}/dir`, { body: { path: 'made/here' } })).status).toBe(409);
    expect((await m.api('PUT', `/spiders/${id}/dir`, { body: { path: 'main.py' } })).status).toBe(409);
  });

  it('renames a file and a folder with its contents', async () => {
    await m.api('POST', `/spiders/${id}/file`, { body: { path: 'ren/a.py', content: 'A' } });
    await m.api('POST', `/spiders/${id}/file`, { body: { path: 'ren/in/b.py', content: 'B' } });
    expect(
      (await m.api('POST', `/spiders/${id}/file/rename`, { body: { path: 'ren/a.py', new_path: 'ren/c.py' } })).status,
    ).toBe(200);
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'ren/c.py' } })).body.data).toBe('A');
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'ren/a.py' } })).status).toBe(404);
    expect(
      (await m.api('POST', `/spiders/${id}/file/rename`, { body: { path: 'ren', new_path: 'moved/ren2' } })).status,
    ).toBe(200);
    const paths = (await fileSnapshot(m, id))
      .map((f) => f.path)
      .filter((p) => p.startsWith('moved') || p.startsWith('ren'));
    expect(paths).toEqual(['moved', 'moved/ren2', 'moved/ren2/c.py', 'moved/ren2/in', 'moved/ren2/in/b.py']);
    expect((await m.api('GET', `/spiders/${id}/file`, { query: { path: 'moved/ren2/in/b.py' } })).body.data).toBe('B');
    const before = await fileSnapshot(m, id);
    expect(
      (await m.api('POST', `/spiders/${id}/file/rename`, { body: { path: 'main.py', new_path: 'zeta.py' } })).status,
    ).toBe(409);
    expect(
      (await m.api('POST', `/spiders/${id}/file/rename`, { body: { path: 'nope.py', new_path: 'x.py' } })).status,
    ).toBe(404);
    expect(
      (await m.api('POST', `/spiders/${id}/file/rename`, { body: { path: 'moved', new_path: 'moved/inside' } })).status,
    ).toBe(400);
    expect(
      (await m.api('POST', `/spiders/${id}/file/rename`, { body: { path: 'main.py', new_path: 'main.py' } })).status,
    ).toBe(400);
    expect(await fileSnapshot(m, id)).toEqual(before);
  });

  it('deletes a file and a folder recursively, collecting unused blobs', async () => {
    await m.api('POST', `/spiders/${id}/file`, { body: { path: 'gone/one.py', content: 'unique-content-one' } });
    await m.api('POST', `/spiders/${id}/file`, {
      body: { path: 'gone/two/three.py', content: 'unique-content-three' },
    });
    const before = await counts(m);
    const r = await m.api('DELETE', `/spiders/${id}/file`, { body: { path: 'gone' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ deleted: 4 });
    const after = await counts(m);
    expect(after.files).toBe(before.files - 4);
    expect(after.blobs).toBe(before.blobs - 2);
    await m.api('PUT', `/spiders/${id}/file`, { body: { path: 'q.py' } });
    expect((await m.api('DELETE', `/spiders/${id}/file`, { query: { path: 'q.py' } })).status).toBe(200);
    expect((await m.api('DELETE', `/spiders/${id}/file`, { body: { path: 'gone' } })).status).toBe(404);
  });
});

describe('spider files: paths are confined to the spider', () => {
  const evil = [
    '../x.py',
    '../../etc/passwd',
    'lib/../../x',
    '/etc/passwd',
    '%2e%2e%2fx.py',
    '%2e%2e/x.py',
    '..%2fx.py',
    '%252e%252e%252fx.py',
    'lib\\..\\..\\x',
    '..\\x',
    'a\u0000b.py',
    'C:/x.py',
    '',
    '   ',
    'a/%00/b',
  ];

  it('refuses traversal, absolute, encoded, backslash and NUL paths on every call with 400, changing nothing', async () => {
    const before = await fileSnapshot(m, id);
    const totals = await counts(m);
    for (const p of evil) {
      const calls: [string, string, { query?: Record<string, unknown>; body?: unknown }][] = [
        ['GET', '/file', { query: { path: p } }],
        ['GET', '/file', { query: { path: p, raw: '1' } }],
        ['POST', '/file', { body: { path: p, content: 'x' } }],
        ['PUT', '/file', { body: { path: p } }],
        ['PUT', '/dir', { body: { path: p } }],
        ['DELETE', '/file', { body: { path: p } }],
        ['POST', '/file/rename', { body: { path: p, new_path: 'ok.py' } }],
        ['POST', '/file/rename', { body: { path: 'main.py', new_path: p } }],
      ];
      if (p.trim() !== '' && p !== '/') calls.push(['GET', '/dir', { query: { path: p } }]);
      for (const [method, route, opts] of calls) {
        const r = await m.api(method, `/spiders/${id}${route}`, opts);
        expect(r.status, `${method} ${route} ${JSON.stringify(p)}`).toBe(400);
        expect(r.body.error, `${method} ${route} ${JSON.stringify(p)}`).toMatch(/path|new_path/);
      }
    }
    // raw URLs the harness would otherwise encode
    for (const q of ['path=..%2Fx.py', 'path=%2e%2e%2fx.py', 'path=%252e%252e%252f', 'path=%00', 'path=..%5cx']) {
      const res = await fetch(new URL(`/api/spiders/${id}/file?${q}`, m.url), {
        headers: { authorization: m.adminToken },
      });
      expect(res.status, q).toBe(400);
    }
    expect(await fileSnapshot(m, id)).toEqual(before);
    expect(await counts(m)).toEqual(totals);
  });

  it('gives clear messages', async () => {
    const msg = async (p: string) => (await m.api('GET', `/spiders/${id}/file`, { query: { path: p } })).body.error;
    expect(await msg('../x')).toBe('path must not contain ".." segments');
    expect(await msg('/etc/passwd')).toBe('path must be relative to the spider folder (no leading "/")');
    expect(await msg('a\\b')).toBe('path must not contain backslashes; use "/"');
    expect(await msg('a\u0000b')).toMatch(/path.*must not contain (the )?NUL/);
    expect(await msg('%2e%2e%2fx')).toMatch(/percent-encoded/);
    expect(await msg('')).toBe('path is required');
  });
});

describe('spider files: who may read and write', () => {
  it('lets a normal user read a public spider but not write it, and neither for a private one (404, as an unknown id), changing nothing', async () => {
    expect(
      (await m.api('GET', `/spiders/${alicePublic}/file`, { token: bob, query: { path: 'main.py' } })).body.data,
    ).toBe('public');
    expect((await m.api('GET', `/spiders/${alicePublic}/file/tree`, { token: bob })).status).toBe(200);
    const before = await counts(m);
    const snapPub = await fileSnapshot(m, alicePublic);
    const snapPriv = await fileSnapshot(m, alicePrivate);
    for (const [sid, refused] of [
      [alicePublic, 403],
      [alicePrivate, 404],
    ] as const) {
      expect(
        (await m.api('POST', `/spiders/${sid}/file`, { token: bob, body: { path: 'main.py', content: 'hacked' } }))
          .status,
      ).toBe(refused);
      expect((await m.api('PUT', `/spiders/${sid}/file`, { token: bob, body: { path: 'new.py' } })).status).toBe(
        refused,
      );
      expect((await m.api('PUT', `/spiders/${sid}/dir`, { token: bob, body: { path: 'd' } })).status).toBe(refused);
      expect((await m.api('DELETE', `/spiders/${sid}/file`, { token: bob, body: { path: 'main.py' } })).status).toBe(
        refused,
      );
      expect(
        (
          await m.api('POST', `/spiders/${sid}/file/rename`, {
            token: bob,
            body: { path: 'main.py', new_path: 'x.py' },
          })
        ).status,
      ).toBe(refused);
    }
    for (const [method, route] of [
      ['GET', '/file?path=main.py'],
      ['GET', '/dir'],
      ['GET', '/file/tree'],
    ] as const) {
      expect((await m.api(method, `/spiders/${alicePrivate}${route}`, { token: bob })).status).toBe(404);
    }
    expect(await counts(m)).toEqual(before);
    expect(await fileSnapshot(m, alicePublic)).toEqual(snapPub);
    expect(await fileSnapshot(m, alicePrivate)).toEqual(snapPriv);
    // the owner may
    expect(
      (
        await m.api('POST', `/spiders/${alicePrivate}/file`, {
          token: alice,
          body: { path: 'main.py', content: 'mine' },
        })
      ).status,
    ).toBe(200);
    expect((await m.api('GET', '/spiders/aaaaaaaaaaaaaaaaaaaaaaaa/dir')).status).toBe(404);
  });
});

describe('spider files: size limit', () => {
  let small: TestMaster;
  beforeAll(async () => {
    small = await startTestMaster({ maxFileBytes: 1000 });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('refuses a file over the limit with 413 and a clear message, storing nothing', async () => {
    const sid = (await small.api('PUT', '/spiders', { body: { name: 'big' } })).body.data._id;
    const before = await counts(small);
    const r = await small.api('POST', `/spiders/${sid}/file`, { body: { path: 'big.txt', content: 'x'.repeat(1001) } });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/larger than the limit of 1000 bytes \(CRAWLDECK_MAX_FILE_BYTES\)/);
    expect(await counts(small)).toEqual(before);
    expect(
      (await small.api('POST', `/spiders/${sid}/file`, { body: { path: 'ok.txt', content: 'x'.repeat(1000) } })).status,
    ).toBe(200);
    // a larger file from a zip stays downloadable but does not open in the editor
    await multipart(
      small,
      'POST',
      `/spiders/${sid}/upload`,
      {},
      await makeZip([{ name: 'huge.txt', content: 'y'.repeat(5000) }]),
    );
    const open = await small.api('GET', `/spiders/${sid}/file`, { query: { path: 'huge.txt' } });
    expect(open.status).toBe(413);
    expect(open.body.error).toMatch(/raw=1/);
  });
});

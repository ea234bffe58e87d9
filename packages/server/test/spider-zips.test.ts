import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { counts, fileSnapshot, lieAboutSizes, makeEvilZip, makeZip, multipart } from './spider-helpers.ts';
import { listFiles, readFile } from '../src/features/spiders/files.store.ts';

/** Spiders made from zip uploads: layout, replacement of files, and every way a zip can try to escape or explode. */
let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster();
});
afterAll(async () => {
  await m?.close();
});

const create = (body: Record<string, unknown>, token?: string) => m.api('PUT', '/spiders', { body, token });

describe('spiders: zip uploads', () => {
  it('creates a spider from a multipart zip with fields, detecting Scrapy', async () => {
    const zip = await makeZip([
      { name: 'scrapy.cfg', content: '[settings]\ndefault = demo.settings\n' },
      { name: 'demo/', dir: true },
      { name: 'demo/settings.py', content: 'BOT_NAME = "demo"\n' },
      { name: 'demo/spiders/', dir: true },
      { name: 'empty/', dir: true },
    ]);
    const r = await multipart(
      m,
      'PUT',
      '/spiders',
      {
        name: 'zipped',
        cmd: 'scrapy crawl demo',
        is_public: 'true',
        envs: JSON.stringify([{ name: 'X', value: '1' }]),
      },
      zip,
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      name: 'zipped',
      is_scrapy: true,
      is_public: true,
      envs: [{ name: 'X', value: '1' }],
      upload: { files: 2, stripped_folder: null, is_scrapy: true },
    });
    const files = await listFiles(m.master.store.db, r.body.data._id);
    expect(files.map((f) => [f.path, f.is_dir])).toEqual([
      ['demo', 1],
      ['demo/settings.py', 0],
      ['demo/spiders', 1],
      ['empty', 1],
      ['scrapy.cfg', 0],
    ]);
    expect((await readFile(m.master.store.db, r.body.data._id, 'demo/settings.py'))!.toString()).toBe(
      'BOT_NAME = "demo"\n',
    );
  });

  it('strips a single top-level folder (and __MACOSX) and says so', async () => {
    const zip = await makeZip([
      { name: 'proj/main.py', content: 'print("hi")' },
      { name: 'proj/lib/util.py', content: 'x = 1' },
      { name: '__MACOSX/proj/._main.py', content: 'junk' },
    ]);
    const r = await multipart(m, 'PUT', '/spiders', { name: 'folder-zip' }, zip);
    expect(r.status).toBe(200);
    expect(r.body.data.upload).toEqual({ files: 2, stripped_folder: 'proj', is_scrapy: false });
    expect((await fileSnapshot(m, r.body.data._id)).map((f) => f.path)).toEqual(['lib', 'lib/util.py', 'main.py']);
  });

  it('replaces files with POST /upload and collects blobs no file uses any more', async () => {
    const id = (await create({ name: 'reupload' })).body.data._id;
    const first = await multipart(
      m,
      'POST',
      `/spiders/${id}/upload`,
      {},
      await makeZip([
        { name: 'main.py', content: 'unique-v1-content' },
        { name: 'shared.txt', content: 'print("hi")' },
      ]),
    );
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ files: 2, stripped_folder: null, is_scrapy: false, cmd: 'python3 main.py' });
    const db = m.master.store.db;
    const blobExists = async (content: string) => {
      const { createHash } = await import('node:crypto');
      const h = createHash('sha256').update(content).digest('hex');
      return !!(await db.selectFrom('blobs').select('hash').where('hash', '=', h).executeTakeFirst());
    };
    expect(await blobExists('unique-v1-content')).toBe(true);
    const second = await multipart(
      m,
      'POST',
      `/spiders/${id}/upload`,
      {},
      await makeZip([{ name: 'run.py', content: 'v2' }]),
    );
    expect(second.status).toBe(200);
    expect((await fileSnapshot(m, id)).map((f) => f.path)).toEqual(['run.py']);
    expect(await blobExists('unique-v1-content')).toBe(false);
    // 'print("hi")' is still used by folder-zip's main.py: shared blobs stay
    expect(await blobExists('print("hi")')).toBe(true);
  });

  it('refuses zip-slip, absolute paths, backslashes, symlinks, non-zips and empty zips with 400, writing nothing', async () => {
    const id = (await create({ name: 'target' })).body.data._id;
    await multipart(m, 'POST', `/spiders/${id}/upload`, {}, await makeZip([{ name: 'keep.py', content: 'keep' }]));
    const bad: [string, Buffer, RegExp][] = [
      ['dot-dot', await makeEvilZip('../evil.py'), /escapes|\.\./],
      ['nested dot-dot', await makeEvilZip('a/../../evil.py'), /escapes|\.\./],
      ['absolute', await makeEvilZip('/etc/evil.py'), /escapes|relative/],
      ['backslash', await makeEvilZip('..\\evil.py'), /escapes|backslash/],
      ['drive', await makeEvilZip('C:/evil.py'), /escapes|drive|relative/],
      [
        'symlink',
        await makeZip([
          { name: 'main.py', content: 'x' },
          { name: 'link', content: '/etc/passwd', mode: 0o120777 },
        ]),
        /symbolic link/,
      ],
      ['not a zip', Buffer.from('this is not a zip file at all'), /not a valid zip/],
      ['empty', await makeZip([{ name: 'only/', dir: true }]), /no files/],
    ];
    for (const [label, zip, msg] of bad) {
      const before = await counts(m);
      const files = await fileSnapshot(m, id);
      const up = await multipart(m, 'POST', `/spiders/${id}/upload`, {}, zip);
      expect(up.status, label).toBe(400);
      expect(up.body.error, label).toMatch(msg);
      const put = await multipart(m, 'PUT', '/spiders', { name: `evil-${label}` }, zip);
      expect(put.status, label).toBe(400);
      expect(await counts(m), label).toEqual(before);
      expect(await fileSnapshot(m, id), label).toEqual(files);
    }
    expect((await multipart(m, 'POST', `/spiders/${id}/upload`, {})).status).toBe(400);
    expect((await m.api('POST', `/spiders/${id}/upload`, { body: {} })).status).toBe(400);
  });
});

describe('spiders: zip limits', () => {
  let small: TestMaster;
  beforeAll(async () => {
    small = await startTestMaster({ zipMaxEntries: 10, zipMaxBytes: 1024 * 1024 });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('refuses too many entries, a zip bomb and a lying header with 400, writing nothing', async () => {
    const id = (await small.api('PUT', '/spiders', { body: { name: 'limited' } })).body.data._id;
    const many = await makeZip(Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.txt`, content: 'x' })));
    const bomb = await makeZip([{ name: 'zeros.bin', content: Buffer.alloc(5 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(64 * 1024); // high compression ratio
    const liar = lieAboutSizes(bomb, 100);
    const cases: [string, Buffer, RegExp][] = [
      ['entries', many, /entries.*CRAWLDECK_ZIP_MAX_ENTRIES/],
      ['bomb', bomb, /expands to more than 1 MiB/],
      ['liar', liar, /expands to more than|too many bytes|invalid zip/],
    ];
    for (const [label, zip, msg] of cases) {
      const before = await counts(small);
      const up = await multipart(small, 'POST', `/spiders/${id}/upload`, {}, zip);
      expect(up.status, label).toBe(400);
      expect(up.body.error, label).toMatch(msg);
      const put = await multipart(small, 'PUT', '/spiders', { name: `big-${label}` }, zip);
      expect(put.status, label).toBe(400);
      expect(await counts(small), label).toEqual(before);
    }
    const fits = await makeZip(Array.from({ length: 10 }, (_, i) => ({ name: `f${i}.txt`, content: 'x' })));
    expect((await multipart(small, 'POST', `/spiders/${id}/upload`, {}, fits)).status).toBe(200);
  });
});

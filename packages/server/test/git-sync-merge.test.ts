import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const file = async (id: string, path: string) => {
  const r = await m.api('GET', `/spiders/${id}/file`, { query: { path } });
  return r.status === 200 ? (r.body.data as string) : undefined;
};
const write = (id: string, path: string, content: string) =>
  m.api('POST', `/spiders/${id}/file`, { body: { path, content } });

const SETTINGS = 'BOT_NAME = "quotes"\n\nSPIDER_MODULES = ["quotes.spiders"]\nROBOTSTXT_OBEY = True\n';

describe('git sync merges with the last synced commit as base', () => {
  it('updates upstream-only changes, keeps console-only ones, reports both-sides changes as conflicts', async () => {
    const url = srv.createRepo('quotes', {
      'scrapy.cfg': '[settings]\ndefault = quotes.settings\n',
      'quotes/__init__.py': '',
      'quotes/settings.py': SETTINGS,
      'quotes/spiders/__init__.py': '',
      'main.py': 'print("v1")\n',
      'README.md': '# quotes\n',
      'old.py': 'x = 1\n',
      'gone.py': 'y = 1\n',
    });
    const imp = await m.api('POST', '/spiders/import/github', { body: { url, type: 'github' } });
    expect(imp.status, imp.body.error).toBe(200);
    const id = imp.body.data._id;
    expect(imp.body.data.git.changes).toBeUndefined(); // a first sync takes the branch as it is

    // console edits: a setting added in the Scrapy Settings tab (written into settings.py), a README edit, a new file
    const settings = await m.api('GET', `/spiders/${id}/scrapy/settings`);
    expect(settings.status, settings.body.error).toBe(200);
    const saved = await m.api('POST', `/spiders/${id}/scrapy/settings`, {
      body: [...settings.body.data, { key: 'DOWNLOAD_DELAY', value: 2, type: 'number' }],
    });
    expect(saved.status, saved.body.error).toBe(200);
    const mine = (await file(id, 'quotes/settings.py'))!;
    expect(mine).toMatch(/DOWNLOAD_DELAY = 2/);
    await write(id, 'README.md', '# quotes, edited in the console\n');
    await write(id, 'notes.txt', 'console only\n');
    await write(id, 'gone.py', 'y = 2  # edited here\n');

    // upstream: settings.py changed too, main.py changed, old.py and gone.py deleted, new.py added
    srv.commit(
      'quotes',
      {
        'quotes/settings.py': SETTINGS + 'CONCURRENT_REQUESTS = 4\n',
        'main.py': 'print("v2")\n',
        'old.py': null,
        'gone.py': null,
        'new.py': 'z = 1\n',
      },
      'upstream changes',
    );
    const sync = await m.api('POST', `/spiders/${id}/git/sync`, { body: {} });
    expect(sync.status, sync.body.error).toBe(200);
    expect(sync.body.data.changes).toEqual({
      updated: ['main.py'],
      added: ['new.py'],
      deleted: ['old.py'],
      kept: ['README.md', 'notes.txt'],
      conflicts: [
        { path: 'gone.py', kind: 'deleted-upstream' },
        { path: 'quotes/settings.py', kind: 'both' },
      ],
    });
    // nothing of the console was overwritten
    expect(await file(id, 'quotes/settings.py')).toBe(mine);
    expect(await file(id, 'gone.py')).toBe('y = 2  # edited here\n');
    expect(await file(id, 'README.md')).toBe('# quotes, edited in the console\n');
    expect(await file(id, 'notes.txt')).toBe('console only\n');
    expect(await file(id, 'main.py')).toBe('print("v2")\n');
    expect(await file(id, 'new.py')).toBe('z = 1\n');
    expect(await file(id, 'old.py')).toBeUndefined();

    // per file: take theirs for settings.py, keep mine for gone.py
    const theirs = await m.api('POST', `/spiders/${id}/git/resolve`, {
      body: { path: 'quotes/settings.py', choice: 'theirs' },
    });
    expect(theirs.status, theirs.body.error).toBe(200);
    expect(theirs.body.data).toEqual({ path: 'quotes/settings.py', choice: 'theirs', exists: true });
    expect(await file(id, 'quotes/settings.py')).toBe(SETTINGS + 'CONCURRENT_REQUESTS = 4\n');
    const keep = await m.api('POST', `/spiders/${id}/git/resolve`, { body: { path: 'gone.py', choice: 'mine' } });
    expect(keep.body.data).toEqual({ path: 'gone.py', choice: 'mine', exists: true });
    expect(await file(id, 'gone.py')).toBe('y = 2  # edited here\n');

    // the next sync with no upstream change to those files leaves the choices alone
    srv.commit('quotes', { 'main.py': 'print("v3")\n' }, 'third');
    const next = await m.api('POST', `/spiders/${id}/git/sync`, { body: {} });
    expect(next.body.data.changes).toEqual({
      updated: ['main.py'],
      added: [],
      deleted: [],
      kept: ['README.md', 'gone.py', 'notes.txt'],
      conflicts: [],
    });
    expect(await file(id, 'gone.py')).toBe('y = 2  # edited here\n');
  });

  it('taking theirs for a file deleted upstream deletes it; bad input is refused and changes nothing', async () => {
    const url = srv.createRepo('deleted', { 'a.py': 'a = 1\n', 'b.py': 'b = 1\n' });
    const id = (await m.api('POST', '/spiders/import/github', { body: { url, type: 'github' } })).body.data._id;
    await write(id, 'a.py', 'a = 2\n');
    srv.commit('deleted', { 'a.py': null }, 'drop a');
    const sync = await m.api('POST', `/spiders/${id}/git/sync`, { body: {} });
    expect(sync.body.data.changes.conflicts).toEqual([{ path: 'a.py', kind: 'deleted-upstream' }]);
    expect(
      (await m.api('POST', `/spiders/${id}/git/resolve`, { body: { path: 'a.py', choice: 'sideways' } })).status,
    ).toBe(400);
    expect(
      (await m.api('POST', `/spiders/${id}/git/resolve`, { body: { path: '../etc/passwd', choice: 'theirs' } })).status,
    ).toBe(400);
    expect(await file(id, 'a.py')).toBe('a = 2\n');
    const r = await m.api('POST', `/spiders/${id}/git/resolve`, { body: { path: 'a.py', choice: 'theirs' } });
    expect(r.body.data).toEqual({ path: 'a.py', choice: 'theirs', exists: false });
    expect(await file(id, 'a.py')).toBeUndefined();
    expect(await file(id, 'b.py')).toBe('b = 1\n');

    // a spider never synced from Git has nothing to resolve
    const plain = await m.api('PUT', '/spiders', { body: { name: 'plain', cmd: 'python3 x.py' } });
    const none = await m.api('POST', `/spiders/${plain.body.data._id}/git/resolve`, {
      body: { path: 'x.py', choice: 'theirs' },
    });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/not been synced/);
  });
});

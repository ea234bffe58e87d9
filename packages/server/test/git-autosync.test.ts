import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { startGitHttpServer, type GitHttpServer } from './support/git-http.ts';
import { waitFor } from './tasks.helpers.ts';
import { claimAutoSync } from '../src/features/git/git.store.ts';

let m: TestMaster;
let srv: GitHttpServer;

beforeAll(async () => {
  // Read when the git feature registers: a round every second for this master.
  process.env.CRAWLDECK_GIT_AUTO_SYNC_S = '1';
  [m, srv] = await Promise.all([startTestMaster(), startGitHttpServer()]);
});
afterAll(async () => {
  await m?.close();
  await srv?.close();
  delete process.env.CRAWLDECK_GIT_AUTO_SYNC_S;
});

describe('git auto-sync', () => {
  it('brings new commits to spiders with git_auto_sync, without a click', async () => {
    const url = srv.createRepo('auto', { 'main.py': 'print("v1")\n' });
    const imp = await m.api('POST', '/spiders/import/github', { body: { url, type: 'github' } });
    expect(imp.status, imp.body.error).toBe(200);
    const id = imp.body.data._id as string;
    expect((await m.api('POST', `/spiders/${id}`, { body: { git_auto_sync: true } })).status).toBe(200);
    srv.commit('auto', { 'main.py': 'print("v2")\n' }, 'second');
    await waitFor(
      'auto-synced',
      async () =>
        (await m.api('GET', `/spiders/${id}/file`, { query: { path: 'main.py' } })).body.data === 'print("v2")\n',
      20_000,
      200,
    );
  });

  it('lets exactly one of several concurrent callers (masters) claim an attempt', async () => {
    const url = srv.createRepo('claim', { 'a.py': 'x\n' });
    const id = (await m.api('POST', '/spiders/import/github', { body: { url, type: 'github' } })).body.data
      ._id as string;
    // The import recorded an attempt just now: not due yet for a one-minute interval.
    expect(await claimAutoSync(m.master.store.db, id, Date.now() - 60_000)).toBe(false);
    const due = Date.now() + 1;
    await new Promise((r) => setTimeout(r, 5));
    const results = await Promise.all(Array.from({ length: 5 }, () => claimAutoSync(m.master.store.db, id, due)));
    expect(results.filter(Boolean)).toHaveLength(1);
    // A spider without any recorded attempt is claimed once too (first insert wins).
    const fresh = await m.api('PUT', '/spiders', { body: { name: 'no-attempt-yet', cmd: 'true' } });
    const dueNow = Date.now() - 60_000; // as the loop computes it: now minus the interval
    const first = await Promise.all(
      Array.from({ length: 5 }, () => claimAutoSync(m.master.store.db, fresh.body.data._id, dueNow)),
    );
    expect(first.filter(Boolean)).toHaveLength(1);
  });
});

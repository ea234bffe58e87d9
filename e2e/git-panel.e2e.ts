/**
 * The Git panel in zh and en: a repository served over smart HTTP on loopback is connected (a hostile URL refused
 * in the form), synced to its last commit, reset after a console edit, shown with the server's message for a wrong
 * branch, and imported as a new spider from the spider list.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { e2eTest, useE2E } from './harness.ts';
import { shot, signIn } from './journey.ts';
import { apiCaller } from './api-call.ts';
import { startGitHttpServer, type GitHttpServer } from '../packages/server/test/support/git-http.ts';

const env = useE2E({ master: { embeddedNode: true } });
const call = apiCaller(() => env.url);
const readSpiderFile = (token: string, id: string, p: string) =>
  call<string>(token, 'GET', `/spiders/${id}/file?path=${encodeURIComponent(p)}`);

describe('git panel and import', () => {
  let srv: GitHttpServer;
  beforeAll(async () => {
    process.env.CRAWLDECK_GIT_AUTO_SYNC_S = '0';
    srv = await startGitHttpServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  for (const lang of ['en', 'zh'] as const) {
    e2eTest(
      `${lang}: connect a repository, sync shows the last commit, reset discards console edits, import opens the new spider`,
      async ({ page }) => {
        const token = await signIn(page, lang);
        const repo = `demo_${lang}`;
        const url = srv.createRepo(repo, { 'main.py': 'print("v1")\n' });
        const sp = await call<{ _id: string }>(token, 'PUT', '/spiders', {
          name: `e2e_git_${lang}`,
          cmd: 'python3 main.py',
        });
        await page.goto(`${env.url}/spiders/${sp._id}`);
        const panel = page.locator('[data-testid=git-panel]');
        await panel.waitFor();
        // a hostile URL is refused in the form
        await panel.locator('[data-testid=git-url]').fill('ext::sh -c touch% /tmp/pwned');
        await panel.locator('[data-testid=git-sync]').click();
        await panel.locator('.ant-form-item-explain-error').first().waitFor();
        await panel.locator('[data-testid=git-url]').fill(url);
        await panel.locator('[data-testid=git-sync]').click();
        await expect
          .poll(() => panel.locator('[data-testid=git-commit-message]').innerText(), { timeout: 30_000 })
          .toBe('initial commit');
        expect(await readSpiderFile(token, sp._id, 'main.py')).toBe('print("v1")\n');

        // a new commit arrives with the next sync
        const hash = srv.commit(repo, { 'main.py': 'print("v2")\n' }, 'second commit');
        await panel.locator('[data-testid=git-sync]').click();
        await expect
          .poll(() => panel.locator('[data-testid=git-commit-message]').innerText(), { timeout: 30_000 })
          .toBe('second commit');
        expect(await panel.locator('[data-testid=git-commit-hash]').innerText()).toBe(hash.slice(0, 10));
        expect(await panel.locator('[data-testid=git-last-sync]').innerText()).toMatch(/^\d{4}-\d{2}-\d{2} /);
        await panel.scrollIntoViewIfNeeded();
        await shot(page, `git-panel-synced-${lang}`);

        // reset (with the confirmation) discards a console edit
        await call(token, 'POST', `/spiders/${sp._id}/file`, { path: 'main.py', content: 'edited in the console\n' });
        await panel.locator('[data-testid=git-reset]').click();
        await page.locator('.ant-modal-confirm').waitFor();
        await shot(page, `git-reset-confirm-${lang}`);
        await page.locator('[data-testid=git-reset-confirm]').click();
        await expect.poll(() => readSpiderFile(token, sp._id, 'main.py'), { timeout: 30_000 }).toBe('print("v2")\n');

        // a wrong branch: the server's message is shown
        await panel.locator('[data-testid=git-branch] input').fill('nope');
        await panel.locator('[data-testid=git-sync]').click();
        await panel.locator('[data-testid=git-error]', { hasText: 'nope' }).waitFor({ timeout: 30_000 });
        await shot(page, `git-panel-error-${lang}`);
        await panel.locator('[data-testid=git-branch] input').fill('main');
        await panel.locator('[data-testid=git-sync]').click();
        await panel.locator('[data-testid=git-error]').waitFor({ state: 'detached', timeout: 30_000 });

        // Import dialog: a repository URL becomes a new spider, opened at once
        const importUrl = srv.createRepo(`imported_${lang}`, { 'run.sh': 'echo imported\n' });
        await page.goto(`${env.url}/spiders`);
        await page.locator('[data-testid=spider-import]').click();
        const dlg = page.locator('.spider-import-modal');
        await dlg.locator('[data-testid=import-url]').fill(importUrl);
        await dlg.locator('.ant-modal-footer .ant-btn-primary').click();
        await page.waitForURL(/\/spiders\/[0-9a-f]{24}$/, { timeout: 60_000 });
        await page.locator('[data-testid=spider-title]', { hasText: `imported_${lang}` }).waitFor();
        await expect
          .poll(() => page.locator('[data-testid=git-commit-message]').innerText(), { timeout: 30_000 })
          .toBe('initial commit');
        await shot(page, `git-imported-${lang}`);
      },
      { timeout: 180_000 },
    );
  }
});

/**
 * A spider with nothing to run: its Run button is disabled and says why (zh/en); once a command is set it runs.
 */
import { describe, expect } from 'vitest';
import { e2eTest, loginByApi, useE2E } from './harness.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E();

const call = apiCaller(() => env.url);

const REASON = {
  en: 'Set a command first (Overview tab): no-cmd-en has nothing to run',
  zh: '请先在概览中设置执行命令：no-cmd-zh 没有可运行的命令',
};

describe('run needs a command', () => {
  for (const lang of ['en', 'zh'] as const) {
    e2eTest(`${lang}: Run is disabled with the reason while the spider has no command`, async ({ page }) => {
      const token = await loginByApi(page, lang);
      const spider = await call<{ _id: string }>(token, 'PUT', '/spiders', { name: `no-cmd-${lang}`, cmd: '' });
      await page.goto(`${env.url}/spiders`);
      const run = page
        .locator('.app-view:visible tr', { hasText: `no-cmd-${lang}` })
        .locator('[data-testid=spider-run]');
      await run.waitFor();
      expect(await run.isDisabled()).toBe(true);
      expect(await run.getAttribute('data-disabled-reason')).toBe(REASON[lang]);
      await run.hover({ force: true });
      await expect.poll(() => page.locator('.ant-tooltip:visible').innerText()).toBe(REASON[lang]);

      await call(token, 'POST', `/spiders/${spider._id}`, { cmd: 'python3 main.py' });
      await page.reload();
      await run.waitFor();
      expect(await run.isDisabled()).toBe(false);
    });
  }
});

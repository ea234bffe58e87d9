/**
 * A screen whose code cannot be downloaded (the network dropped, a new release replaced the chunks) shows the
 * route's error screen inside the shell with a reload button, on a fresh load and on a navigation alike; the
 * sidebar stays usable and takes the user to another screen.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, loginByApi, useE2E } from './harness.ts';

const env = useE2E();

const TEXTS = {
  en: { home: 'Home', spiders: 'Spiders', failed: 'This screen failed to load or render', reload: 'Reload' },
  zh: { home: '主页', spiders: '爬虫', failed: '页面加载或渲染出错', reload: '重新加载' },
};

const menuItem = (page: Page, text: string) =>
  page.locator('.sidebar-container .ant-menu-item', { hasText: new RegExp(`^${text}$`) });

async function blockSpiderListCode(page: Page): Promise<string[]> {
  const blocked: string[] = [];
  await page.route(/\/assets\/SpiderListPage-[^/]*\.js$/, (route) => {
    blocked.push(route.request().url());
    return route.abort();
  });
  return blocked;
}

async function expectErrorScreenInShell(page: Page, lang: 'en' | 'zh'): Promise<void> {
  const error = page.locator('[data-page="route-error"]');
  await error.waitFor();
  await expect.poll(() => error.innerText()).toContain(TEXTS[lang].failed);
  await page.locator('.route-error button', { hasText: TEXTS[lang].reload }).waitFor();
  await page.locator('.sidebar-container').waitFor();
}

describe('a screen whose code cannot be downloaded', () => {
  for (const lang of ['en', 'zh'] as const) {
    e2eTest(`${lang}: fresh load and navigation show the error screen in the shell`, async ({ page }) => {
      await loginByApi(page, lang);
      const blocked = await blockSpiderListCode(page);

      await page.goto(`${env.url}/spiders`);
      await expectErrorScreenInShell(page, lang);
      expect(blocked.length).toBeGreaterThan(0);

      // the shell still works: the sidebar leads to a screen that loads
      await menuItem(page, TEXTS[lang].home).click();
      await page.locator('.tags-view-item', { hasText: TEXTS[lang].home }).waitFor();

      // a navigation within the console to the broken screen shows the same error screen
      await page.goto(`${env.url}/home`);
      await page.locator('.tags-view-item', { hasText: TEXTS[lang].home }).waitFor();
      await menuItem(page, TEXTS[lang].spiders).click();
      await expectErrorScreenInShell(page, lang);
    });
  }
});

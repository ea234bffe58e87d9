/**
 * The console downloads only the language it shows, and index.html preloads it: in a real Chromium the language's
 * chunk is fetched by the page (a `<link rel="modulepreload">` the master chose from the `lang` cookie), not by the
 * entry script once it ran, and the other language is not fetched at all. Switching languages at run time still
 * works without a reload, and the cookie follows the choice.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, loginByApi, useE2E } from './harness.ts';

const env = useE2E();

/**
 * Records the language chunks the page requests from now on, and who requested each, as Chromium tells it:
 * `parser` for a preload named by index.html, `script` for an import() of the running console. The browser cache
 * is off for the page: a chunk it already holds would be reported with the requester of its first download.
 */
async function watchLanguageChunks(page: Page): Promise<{ lang: string; initiator: string }[]> {
  const seen: { lang: string; initiator: string }[] = [];
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  cdp.on('Network.requestWillBeSent', (e) => {
    const lang = /\/assets\/bundle-([a-z]+)-/.exec(e.request.url)?.[1];
    if (lang) seen.push({ lang, initiator: e.initiator.type });
  });
  return seen;
}

async function langCookie(page: Page): Promise<string | undefined> {
  return (await page.context().cookies(env.url)).find((c) => c.name === 'lang')?.value;
}

async function openHome(page: Page): Promise<void> {
  await page.goto(`${env.url}/home`);
  await page.locator('.app-wrapper').waitFor();
}

describe('language chunk preloaded with the page', () => {
  for (const [lang, other, home, switchTo, homeAfter] of [
    ['en', 'zh', 'Home', '中文', '主页'],
    ['zh', 'en', '主页', 'English', 'Home'],
  ] as const) {
    e2eTest(
      `${lang}: the page preloads the ${lang} texts only; a switch to ${other} needs no reload`,
      async ({ page }) => {
        await loginByApi(page, lang);
        // the console keeps the cookie in step with the stored language
        await openHome(page);
        await expect.poll(() => langCookie(page)).toBe(lang);

        // a returning visit: the page itself requests the language chunk, and only that one
        const chunks = await watchLanguageChunks(page);
        await openHome(page);
        await page.locator('.tags-view-item', { hasText: home }).waitFor();
        expect(chunks).toEqual([{ lang, initiator: 'parser' }]);

        // switching at run time loads the other language's chunk, without a reload
        await page.evaluate(() => ((window as unknown as { beforeSwitch: boolean }).beforeSwitch = true));
        await page.locator('.lang-entry').click();
        await page.locator('.ant-dropdown-menu-item', { hasText: switchTo }).click();
        await page.locator('.tags-view-item', { hasText: homeAfter }).waitFor();
        expect(await page.evaluate(() => (window as unknown as { beforeSwitch?: boolean }).beforeSwitch)).toBe(true);
        expect(chunks).toEqual([
          { lang, initiator: 'parser' },
          { lang: other, initiator: 'script' },
        ]);
        await expect.poll(() => langCookie(page)).toBe(other);

        // and the next visit preloads the new language
        chunks.length = 0;
        await openHome(page);
        await page.locator('.tags-view-item', { hasText: homeAfter }).waitFor();
        expect(chunks).toEqual([{ lang: other, initiator: 'parser' }]);
      },
    );
  }

  e2eTest('a first visit without a stored language preloads the default language (zh)', async ({ page }) => {
    await page.context().clearCookies();
    const chunks = await watchLanguageChunks(page);
    await page.goto(`${env.url}/login`);
    await page.locator('button[type=submit]').waitFor();
    expect(chunks).toEqual([{ lang: 'zh', initiator: 'parser' }]);
    await expect.poll(() => langCookie(page)).toBe('zh');
  });
});

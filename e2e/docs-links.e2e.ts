/**
 * Every documentation link the console shows leads to a page of the guide the master serves, in the console's
 * language: the Related Documentation drawer on each screen it has topics for, and the Nodes screen's
 * multi-node deployment link. Each page is opened in the browser, under the master's content security policy.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, loginByApi, useE2E } from './harness.ts';

const env = useE2E();

/** Screens with documentation topics in the drawer; the drawer lists every section on each, expanded or not. */
const SCREENS = ['spiders', 'nodes'];

async function drawerLinks(page: Page): Promise<string[]> {
  const hrefs = new Set<string>();
  for (const screen of SCREENS) {
    await page.goto(`${env.url}/${screen}?docs=1`);
    await page.locator('.docs-drawer a.docs-link').first().waitFor();
    // expand every section, so collapsed pages are followed too
    for (;;) {
      const closed = page.locator('.docs-drawer .ant-tree-switcher_close');
      if (!(await closed.count())) break;
      await closed.first().click();
    }
    for (const href of await page
      .locator('.docs-drawer a.docs-link')
      .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href)))
      hrefs.add(href);
  }
  return [...hrefs];
}

async function followAll(page: Page, hrefs: string[], lang: 'en' | 'zh') {
  for (const href of hrefs) {
    expect(new URL(href).searchParams.get('lang'), href).toBe(lang);
    const res = await page.goto(href);
    expect(res?.status(), href).toBe(200);
    expect(await page.locator('html').getAttribute('lang'), href).toBe(lang === 'zh' ? 'zh-CN' : 'en');
    await page.locator('main.docs-main h1').waitFor();
    expect(await page.locator('#root').count(), `${href} is the console, not a guide page`).toBe(0);
    // the page's stylesheet loaded (it is a file of its own under the strict CSP)
    expect(await page.locator('main.docs-main').evaluate((el) => getComputedStyle(el).maxWidth)).toBe('860px');
  }
}

describe('documentation links', () => {
  for (const lang of ['en', 'zh'] as const) {
    e2eTest(
      `${lang}: every link of the docs drawer and the Nodes screen opens a guide page in the console's language`,
      async ({ page }) => {
        const token = await loginByApi(page, lang);
        const hrefs = await drawerLinks(page);
        const docsMap = JSON.parse(
          (await (await fetch(`${env.url}/api/docs`, { headers: { authorization: token } })).json()).data.string,
        ) as Record<string, unknown>;
        expect(hrefs.length).toBe(Object.keys(docsMap).length);

        await page.goto(`${env.url}/nodes`);
        const join = page.locator('a.node-join-docs');
        await join.waitFor();
        const joinHref = await join.evaluate((a) => (a as HTMLAnchorElement).href);
        expect(joinHref).toContain('/docs/node/multi-node.html');
        await followAll(page, [...hrefs, joinHref], lang);
      },
      { timeout: 240_000 },
    );
  }
});

/**
 * Tours, release dialog and Related Documentation drawer in a real Chromium. The release comes from a local HTTP
 * server passed to the master as releasesUrl. The dialog and the drawer have their entry points switched off in
 * the navbar, so they are opened with the ?release= / ?docs=1 debug openers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, loginByApi, OUTPUT_DIR, useE2E } from './harness.ts';

const RELEASE_BODY = [
  '# Crawldeck v99.0.0',
  '',
  'Highlights: **faster scheduler** and a [changelog](https://example.com/changelog).',
  '',
  '- [bad link](javascript:window.__pwned=1)',
  '- item two',
  '',
  '<script>window.__pwned = 1</script>',
  '<img src="x" onerror="window.__pwned=2">',
  '',
  '![tracker](javascript:window.__pwned=3)',
].join('\n');

let releaseHits = 0;
const releaseServer = http.createServer((req, res) => {
  releaseHits++;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ tag_name: 'v99.0.0', name: 'Crawldeck v99.0.0', body: RELEASE_BODY }));
});
await new Promise<void>((resolve) => releaseServer.listen(0, '127.0.0.1', resolve));
const releasesUrl = `http://127.0.0.1:${(releaseServer.address() as AddressInfo).port}/releases/latest`;
afterAll(() => new Promise<void>((resolve) => releaseServer.close(() => resolve())));

const env = useE2E({ master: { releasesUrl } });

const SCREENS = path.join(path.dirname(OUTPUT_DIR), 'screens');
async function shot(page: Page, name: string) {
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`) });
}

/** Records the analytics events the page sends (PUT /api/actions). */
function recordEvents(page: Page): Array<{ type: string; params?: Record<string, unknown> }> {
  const events: Array<{ type: string; params?: Record<string, unknown> }> = [];
  page.on('request', (req) => {
    if (req.method() === 'PUT' && req.url().endsWith('/api/actions')) {
      try {
        events.push(JSON.parse(req.postData() ?? '{}'));
      } catch {
        /* ignore */
      }
    }
  });
  return events;
}

async function session(page: Page, lang: 'zh' | 'en', tutorial: '0' | '1' | null) {
  await loginByApi(page, lang);
  await page.evaluate((t) => {
    if (t === null) localStorage.removeItem('enableTutorial');
    else localStorage.setItem('enableTutorial', t);
  }, tutorial);
}

const tour = (page: Page) => page.locator('.ant-tour:visible');
const tourTitle = (page: Page) => page.locator('.ant-tour:visible .ant-tour-title');

describe('tours, release dialog, docs drawer', () => {
  e2eTest('en: the spider-list tour runs to the end, is marked finished and not shown again', async ({ page }) => {
    const events = recordEvents(page);
    await session(page, 'en', '1');
    await page.goto(`${env.url}/spiders`);
    await tour(page).waitFor();
    const titles: string[] = [];
    for (let i = 0; i < 4; i++) {
      await expect.poll(() => tourTitle(page).innerText()).not.toBe(titles[titles.length - 1] ?? '');
      titles.push((await tourTitle(page).innerText()).trim());
      if (i === 1) await shot(page, 'tour-spider-list-en-step1');
      await page.locator('.ant-tour:visible .ant-tour-next-btn').click();
    }
    expect(titles).toEqual(['Search spiders', 'Spider list', 'Import from a URL', 'Add a spider']);
    await tour(page)
      .waitFor({ state: 'detached', timeout: 5000 })
      .catch(() => undefined);
    await expect.poll(() => tour(page).count()).toBe(0);
    expect(JSON.parse((await page.evaluate(() => localStorage.getItem('tour'))) ?? '{}')).toEqual({ 'spider-list': 1 });
    await expect
      .poll(() => events.find((e) => e.type === 'tour_end'))
      .toEqual({ type: 'tour_end', params: { name: 'spider-list', result: 'completed' } });

    await page.reload();
    await page.locator('[data-tour="spider-list-table"]').waitFor();
    await page.waitForTimeout(2500);
    expect(await tour(page).count()).toBe(0);
    // no tour on a screen without one
    await page.goto(`${env.url}/home`);
    await page.waitForTimeout(1500);
    expect(await tour(page).count()).toBe(0);
  });

  e2eTest('zh: closing the tour early ends it as skipped and marks it finished', async ({ page }) => {
    const events = recordEvents(page);
    await session(page, 'zh', '1');
    await page.goto(`${env.url}/spiders`);
    await tour(page).waitFor();
    await expect.poll(() => tourTitle(page).innerText()).toBe('搜索爬虫');
    await page.locator('.ant-tour:visible .ant-tour-next-btn').click();
    await expect.poll(() => tourTitle(page).innerText()).toBe('爬虫列表');
    await shot(page, 'tour-spider-list-zh-step1');
    await page.locator('.ant-tour:visible .ant-tour-close').click();
    await expect.poll(() => tour(page).count()).toBe(0);
    await expect
      .poll(() => events.find((e) => e.type === 'tour_end'))
      .toEqual({ type: 'tour_end', params: { name: 'spider-list', result: 'skipped' } });
    expect(JSON.parse((await page.evaluate(() => localStorage.getItem('tour'))) ?? '{}')).toEqual({ 'spider-list': 1 });
    // the setting tour still shows (finished by name, one at a time)
    await page.goto(`${env.url}/setting`);
    await tour(page).waitFor();
    await expect.poll(() => tourTitle(page).innerText()).toBe('通用');
    await shot(page, 'tour-setting-zh');
  });

  e2eTest('enableTutorial 0: no tour appears', async ({ page }) => {
    await session(page, 'en', '0');
    await page.goto(`${env.url}/spiders`);
    await page.locator('[data-tour="spider-list-table"]').waitFor();
    await page.waitForTimeout(2500);
    expect(await tour(page).count()).toBe(0);
    await page.goto(`${env.url}/setting`);
    await page.locator('[data-tour="setting-tab-general"]').waitFor();
    await page.waitForTimeout(2000);
    expect(await tour(page).count()).toBe(0);
    expect(await page.evaluate(() => localStorage.getItem('tour'))).toBeNull();
  });

  e2eTest('en: release dialog renders the note safely and switches to How to Upgrade', async ({ page }) => {
    const events = recordEvents(page);
    await session(page, 'en', '0');
    await page.goto(`${env.url}/home?release=1`);
    const dialog = page.locator('.release-dialog');
    await dialog.waitFor();
    await expect.poll(() => page.locator('[data-testid="release-title"]').innerText()).toBe('Release v99.0.0');
    const note = dialog.locator('[data-testid="release-note"]');
    await expect.poll(() => note.locator('h1').innerText()).toBe('Crawldeck v99.0.0');
    expect(await note.locator('strong').innerText()).toBe('faster scheduler');
    const good = note.locator('a', { hasText: 'changelog' });
    expect(await good.getAttribute('href')).toBe('https://example.com/changelog');
    expect(await good.getAttribute('target')).toBe('_blank');
    expect(await good.getAttribute('rel')).toContain('noopener');
    // unsafe link: text kept, no javascript: href; raw HTML dropped; unsafe image dropped
    expect(await note.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await note.innerText()).toContain('bad link');
    expect(await note.locator('script, img, iframe').count()).toBe(0);
    expect(await note.innerHTML()).not.toContain('onerror');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await dialog.locator('.ant-tabs-tab').allInnerTexts()).toEqual(['Release Note', 'How to Upgrade']);
    await shot(page, 'release-dialog-en-note');

    await dialog.locator('[data-testid="release-tab-upgrade"]').click();
    const how = dialog.locator('[data-testid="how-to-upgrade"]');
    await how.waitFor();
    expect(await how.innerText()).toContain('Back up the data directory');
    expect(await how.innerText()).toContain(
      'Stop the master, update the code, install the dependencies and start it again',
    );
    // no image of the project is published: the text must not send anyone to pull one
    expect(await how.innerText()).not.toMatch(/docker|image/i);
    await shot(page, 'release-dialog-en-upgrade');

    await dialog.locator('[data-testid="release-tab-note"]').click();
    await dialog.locator('[data-testid="release-upgrade"]').click();
    await how.waitFor();
    await expect.poll(() => events.some((e) => e.type === 'upgrade_click')).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // the navbar entry point stays switched off
    expect(await page.locator('[data-testid="upgrade-hint"]').count()).toBe(0);
    expect(releaseHits).toBeGreaterThan(0);
  });

  e2eTest('zh: release dialog How to Upgrade', async ({ page }) => {
    await session(page, 'zh', '0');
    await page.goto(`${env.url}/home?release=how-to-upgrade`);
    const dialog = page.locator('.release-dialog');
    await dialog.waitFor();
    await expect.poll(() => page.locator('[data-testid="release-title"]').innerText()).toBe('版本 v99.0.0');
    expect(await dialog.locator('.ant-tabs-tab').allInnerTexts()).toEqual(['更新说明', '如何升级']);
    const how = dialog.locator('[data-testid="how-to-upgrade"]');
    await how.waitFor();
    expect(await how.innerText()).toContain('备份数据目录');
    expect(await how.innerText()).toContain('先升级主节点，再升级工作节点');
    expect(await how.innerText()).not.toMatch(/docker|镜像/i);
    await shot(page, 'release-dialog-zh-upgrade');
    await dialog.locator('[data-testid="release-tab-note"]').click();
    await expect.poll(() => dialog.locator('[data-testid="release-note"] h1').innerText()).toBe('Crawldeck v99.0.0');
  });

  e2eTest(
    'en: docs drawer is 300 px, expands the Spider sections on /spiders and follows the route',
    async ({ page }) => {
      const events = recordEvents(page);
      await session(page, 'en', '0');
      await page.goto(`${env.url}/spiders?docs=1`);
      const drawer = page.locator('.docs-drawer .ant-drawer-content-wrapper');
      await drawer.waitFor();
      await page.locator('.docs-drawer a.docs-link').first().waitFor();
      await expect.poll(async () => (await drawer.boundingBox())?.width).toBe(300);
      expect(await page.locator('.docs-drawer .ant-drawer-title').innerText()).toBe('Related Documentation');
      const link = (label: string) => page.locator('.docs-drawer a.docs-link', { hasText: new RegExp(`^${label}$`) });
      // Spider, SDK, Integration and CI-Git are expanded and active; Task is collapsed
      for (const l of ['Spiders overview', 'Upload a spider', 'Python SDK', 'Scrapy', 'Git spiders'])
        await link(l).waitFor();
      expect(await link('Tasks, logs and results').count()).toBe(0);
      expect(await page.locator('.docs-drawer a.docs-link.active').allInnerTexts()).toEqual([
        'Spider',
        'SDK',
        'Integration',
        'CI-Git',
      ]);
      expect(await link('Upload a spider').getAttribute('target')).toBe('_blank');
      await expect.poll(() => events.some((e) => e.type === 'docs_drawer_open')).toBe(true);
      await shot(page, 'docs-drawer-spiders-en');

      const popup = page.context().waitForEvent('page');
      await link('Upload a spider').click();
      await (await popup).close();
      await expect.poll(() => events.find((e) => e.type === 'doc_link_click')?.params?.label).toBe('Upload a spider');

      // in-app navigation to /tasks: the tree follows the new section (after DOCS_TREE_DELAY_MS)
      await page.evaluate(() => {
        history.pushState({}, '', '/tasks?docs=1');
        dispatchEvent(new PopStateEvent('popstate'));
      });
      await link('Tasks, logs and results').waitFor();
      expect(await page.locator('.docs-drawer a.docs-link.active').allInnerTexts()).toEqual(['Task']);

      await page.locator('.docs-drawer .ant-drawer-close').click();
      await expect.poll(() => events.some((e) => e.type === 'docs_drawer_close')).toBe(true);
      expect(await page.locator('[data-testid="docs-entry"]').count()).toBe(0);
    },
  );
});

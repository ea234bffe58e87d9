/**
 * The Tasks tabs of a spider and of a node, in en and zh: each pages by cursor like the task list. A journey runs
 * enough tasks for three pages and walks the tab forward with "next" and back with "previous", then jumps to the
 * last and the first page; every page shows the tasks the API lists for that owner, newest first, none twice.
 */
import { describe, expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { e2eTest, useE2E } from './harness.ts';
import { signIn } from './journey.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E({ master: { embeddedNode: true } });
const call = apiCaller(() => env.url);
const view = (page: Page) => page.locator('.app-view:visible');

const PAGE_OF = {
  en: (page: number, pages: number) => `Page ${page} of ${pages}`,
  zh: (page: number, pages: number) => `第 ${page} / ${pages} 页`,
} as const;

/**
 * Runs `n` quick tasks of a new spider and waits until every one has ended, so the node's list no longer changes
 * while the tabs are walked (a pending task has no node yet); answers the spider's id.
 */
async function spiderWithTasks(token: string, name: string, n: number): Promise<string> {
  const s = await call<{ _id: string }>(token, 'PUT', '/spiders', { name, cmd: 'echo ok' });
  for (let i = 0; i < n; i++) await call(token, 'PUT', '/tasks', { spider_id: s._id, run_type: 'random' });
  const ended = async () =>
    (await call<{ status: string }[]>(token, 'GET', `/spiders/${s._id}/tasks?page_size=100`)).filter(
      (t) => !['pending', 'running'].includes(t.status),
    ).length;
  await expect.poll(ended, { timeout: 90_000, interval: 500 }).toBe(n);
  return s._id;
}

/**
 * Walks a tab's pages by its pager: forward to the end, back to the start, then last and first. `expected` is the
 * owner's whole list as the API orders it; each page shown must be the next ten of it.
 */
async function walkPages(tab: Locator, expected: string[], pageOf: (page: number, pages: number) => string) {
  const pages = Math.ceil(expected.length / 10);
  const pager = tab.locator('[data-testid=task-pager]');
  const shown = () => tab.locator('.task-link').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-task-id')));
  const button = (key: string) => pager.locator(`[data-testid=task-pager-${key}]`);
  const at = async (no: number, rows = expected.slice((no - 1) * 10, no * 10)) => {
    await expect.poll(shown, { timeout: 15_000 }).toEqual(rows);
    expect(await pager.locator('[data-testid=task-pager-page]').innerText()).toBe(pageOf(no, pages));
  };
  await at(1);
  expect(await pager.locator('[data-testid=task-pager-total]').innerText()).toContain(String(expected.length));
  expect(await button('prev').isDisabled()).toBe(true);
  for (let no = 2; no <= pages; no++) {
    await button('next').click();
    await at(no);
  }
  expect(await button('next').isDisabled()).toBe(true);
  for (let no = pages - 1; no >= 1; no--) {
    await button('prev').click();
    await at(no);
  }
  // The last page is the last ten tasks, read from the end of the list.
  await button('last').click();
  await at(pages, expected.slice(-10));
  await button('first').click();
  await at(1);
}

describe("the spider's and the node's Tasks tabs", () => {
  for (const lang of ['en', 'zh'] as const) {
    e2eTest(
      `${lang}: both Tasks tabs page by cursor: next, previous, last and first`,
      async ({ page }) => {
        const token = await signIn(page, lang);
        const spiderId = await spiderWithTasks(token, `e2e-tab-pages-${lang}`, 23);
        const ids = async (route: string) =>
          (await call<{ _id: string }[]>(token, 'GET', `${route}?page_size=100`)).map((t) => t._id);

        const spiderTasks = await ids(`/spiders/${spiderId}/tasks`);
        expect(spiderTasks).toHaveLength(23);
        await page.goto(`${env.url}/spiders/${spiderId}?tab=tasks`);
        await walkPages(view(page).locator('[data-testid=spider-tasks]'), spiderTasks, PAGE_OF[lang]);

        const [node] = await call<{ _id: string }[]>(token, 'GET', '/nodes');
        const nodeTasks = await ids(`/nodes/${node._id}/tasks`);
        expect(nodeTasks.length).toBeGreaterThanOrEqual(23);
        await page.goto(`${env.url}/nodes/${node._id}?tab=tasks`);
        await walkPages(view(page).locator('.node-detail-tabs .ant-tabs-tabpane-active'), nodeTasks, PAGE_OF[lang]);
      },
      { timeout: 120_000 },
    );
  }
});

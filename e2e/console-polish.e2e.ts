/**
 * Console polish journeys, in en and zh, on a master with its embedded node: a 401 shows one re-login dialog and
 * no toasts behind it; Feedback and Disclaimer are in the user menu; detail tabs carry the entity's name; the Nodes
 * and Tasks tables fit a 1400 px window; the network view draws the master below its legend; English plurals; a
 * running task opens on its live log; Run with no node chosen and deleting a running spider raise no page error
 * (the harness fails a journey on any); a command naming a Scrapy spider shows the picker with it chosen; the
 * results download offers CSV for Excel (asks the server for a BOM).
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, loginByApi, screenshot, useE2E } from './harness.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E({ master: { embeddedNode: true } });
const view = (page: Page) => page.locator('.app-view:visible');
/** How long a screen may take to show what a step waits for on a busy machine. */
const WAIT = { timeout: 15_000 };

/** Prints `n` lines slowly, one of them an error line, and emits one item per line. */
const SLOW_PY = `import json, os, sys, time
n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
with open(os.environ['CRAWLDECK_ITEMS'], 'a', encoding='utf-8') as f:
    for i in range(1, n + 1):
        print('line %d' % i, flush=True)
        if i == 2:
            print('ERROR: the only failure', flush=True)
        f.write(json.dumps({'n': i, 'title': '标题 %d' % i}, ensure_ascii=False) + '\\n')
        f.flush()
        time.sleep(0.5)
`;

const call = apiCaller(() => env.url);

async function createSpider(token: string, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const s = await call<{ _id: string }>(token, 'PUT', '/spiders', { name, cmd: 'python3 slow.py', ...extra });
  await call(token, 'POST', `/spiders/${s._id}/file`, { path: 'slow.py', content: SLOW_PY });
  return s._id;
}

async function runTask(token: string, spiderId: string, param: string): Promise<string> {
  const ids = await call<string[]>(token, 'PUT', '/tasks', { spider_id: spiderId, run_type: 'random', param });
  return ids[0];
}

async function waitForStatus(token: string, taskId: string, statuses: string[]): Promise<void> {
  await expect
    .poll(async () => (await call<{ status: string }>(token, 'GET', `/tasks/${taskId}`)).status, { timeout: 60_000 })
    .toSatisfy((s: string) => statuses.includes(s));
}

/** Whether the element's content is wider than its box (it would scroll sideways). */
async function scrollsSideways(page: Page, selector: string): Promise<{ scroll: number; client: number }> {
  return view(page)
    .locator(selector)
    .first()
    .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
}

/**
 * Rows of the network canvas that hold the online colour: the legend's icon and the master's circle. Returns the
 * legend's bottom and the circle's top (px from the canvas top).
 */
async function legendAndMaster(page: Page): Promise<{ legendBottom: number; circleTop: number; circleRows: number }> {
  return view(page)
    .locator('[data-testid=node-network] canvas')
    .first()
    .evaluate((canvas: HTMLCanvasElement) => {
      const ctx = canvas.getContext('2d')!;
      const { width, height } = canvas;
      const data = ctx.getImageData(0, 0, width, height).data;
      const green = (i: number) =>
        Math.abs(data[i] - 0x52) < 12 && Math.abs(data[i + 1] - 0xc4) < 12 && Math.abs(data[i + 2] - 0x1a) < 12;
      const rows: number[] = [];
      for (let y = 0; y < height; y++) {
        let n = 0;
        for (let x = 0; x < width; x++) if (green((y * width + x) * 4)) n++;
        if (n) rows.push(y);
      }
      // the legend's icon is a short run of rows at the top; the circle is the next run
      let split = rows.findIndex((y, i) => i > 0 && y - rows[i - 1] > 1);
      if (split < 0) split = rows.length;
      const ratio = canvas.height / canvas.getBoundingClientRect().height;
      return {
        legendBottom: (rows[split - 1] ?? -1) / ratio,
        circleTop: (rows[split] ?? -1) / ratio,
        circleRows: (rows.length - split) / ratio,
      };
    });
}

const TEXT = {
  en: { oneNode: '1 node', oneError: '1 error line', feedback: 'Feedback', disclaimer: 'Disclaimer' },
  zh: { oneNode: '共 1 个节点', oneError: '1 行错误', feedback: '反馈', disclaimer: '免责声明' },
};

describe('console polish', () => {
  for (const lang of ['en', 'zh'] as const) {
    const tx = TEXT[lang];

    e2eTest(
      `${lang}: after a 401 one re-login dialog and no toasts; Feedback and Disclaimer in the user menu`,
      async ({ page }) => {
        await loginByApi(page, lang);
        await page.goto(`${env.url}/home`);
        await page.locator('.app-wrapper').waitFor();

        // The user menu leads to Feedback and Disclaimer.
        await page.locator('[data-testid=user-dropdown]').click();
        await page.locator('[data-testid=menu-feedback]').click();
        await page.waitForURL(/\/feedback$/);
        await expect.poll(() => page.locator('.tags-view-item.active').innerText(), WAIT).toBe(tx.feedback);
        await page.locator('[data-testid=user-dropdown]').click();
        await page.locator('[data-testid=menu-disclaimer]').click();
        await page.waitForURL(/\/disclaimer$/);
        await expect.poll(() => page.locator('.tags-view-item.active').innerText(), WAIT).toBe(tx.disclaimer);

        // The session ends on the server's side: every following call answers 401.
        await page.evaluate(() => localStorage.setItem('token', 'expired-token'));
        let unauthorized = 0;
        page.on('response', (r) => {
          if (r.status() === 401 && r.url().includes('/api/')) unauthorized++;
        });
        // The task list loads several things at once (tasks, nodes, spiders, schedules): all of them fail.
        await page.locator('.sidebar-container .ant-menu-item[data-menu-id$="/tasks"]').click();
        await page.locator('.relogin-dialog').waitFor();
        await expect.poll(() => unauthorized, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
        await page.waitForLoadState('networkidle');
        expect(await page.locator('.relogin-dialog').count()).toBe(1);
        expect(await page.locator('.ant-message-notice').count()).toBe(0);
        await screenshot(page, `polish-relogin-${lang}`);
      },
    );

    e2eTest(
      `${lang}: Nodes and Tasks fit 1400 px, the network view keeps the master below its legend, plurals and tab titles`,
      async ({ page }) => {
        const token = await loginByApi(page, lang);
        const spiderName = `polish-fit-${lang}`;
        const spiderId = await createSpider(token, spiderName);
        const taskId = await runTask(token, spiderId, '3');
        await waitForStatus(token, taskId, ['finished']);

        await page.goto(`${env.url}/nodes`);
        await view(page).locator('[data-testid=node-table] .node-link').first().waitFor();
        expect(await view(page).locator('.nodes-toolbar').innerText()).toContain(tx.oneNode);
        const nodes = await scrollsSideways(page, '[data-testid=node-table] .ant-table-content');
        expect(nodes.scroll).toBeLessThanOrEqual(nodes.client);
        await screenshot(page, `polish-nodes-1400-${lang}`);

        await view(page).locator('[data-testid=nodes-view] .ant-segmented-item').nth(1).click();
        await view(page).locator('[data-testid=node-network] canvas').waitFor();
        await expect
          .poll(async () => (await legendAndMaster(page)).circleRows, { timeout: 10_000 })
          .toBeGreaterThan(30);
        const graph = await legendAndMaster(page);
        expect(graph.legendBottom).toBeGreaterThan(0);
        expect(graph.circleTop).toBeGreaterThan(graph.legendBottom + 10);
        await screenshot(page, `polish-network-${lang}`);

        await page.goto(`${env.url}/tasks`);
        await view(page).locator(`[data-testid=task-table] .task-link[data-task-id="${taskId}"]`).waitFor();
        const tasks = await scrollsSideways(page, '[data-testid=task-table] .ant-table-content');
        expect(tasks.scroll).toBeLessThanOrEqual(tasks.client);
        await screenshot(page, `polish-tasks-1400-${lang}`);

        // The task's tab is titled with its spider and id; the log counts its one error line in the singular.
        await view(page).locator(`.task-link[data-task-id="${taskId}"]`).click();
        await page.waitForURL(new RegExp(`/tasks/${taskId}`));
        await expect
          .poll(() => page.locator('.tags-view-item.active').innerText(), WAIT)
          .toBe(`${spiderName} #${taskId.slice(-6)}`);
        await view(page).locator('[data-testid=tab-log]').click();
        await expect.poll(() => view(page).locator('.log-panel').innerText(), WAIT).toContain(tx.oneError);

        await page.goto(`${env.url}/spiders/${spiderId}`);
        await expect.poll(() => page.locator('.tags-view-item.active').innerText(), WAIT).toBe(spiderName);
        expect(await page.title()).toContain(spiderName);
      },
      { width: 1400, height: 900 },
    );

    e2eTest(
      `${lang}: a running task opens on its live log; Run without a node, a Scrapy picker, CSV for Excel, deleting a running spider`,
      async ({ page }) => {
        const token = await loginByApi(page, lang);
        const spiderName = `polish-run-${lang}`;
        const spiderId = await createSpider(token, spiderName);

        // Run with "selected nodes" and none chosen: the form says so, nothing is thrown.
        await page.goto(`${env.url}/spiders/${spiderId}`);
        await view(page).locator('[data-testid=spider-run]').click();
        const dialog = page.locator('.run-dialog');
        await dialog.waitFor();
        await dialog.locator('.run-type .ant-radio-button-wrapper').nth(2).click();
        await dialog.locator('.run-submit').click();
        await dialog.locator('.ant-form-item-explain-error').first().waitFor();
        expect(await dialog.isVisible()).toBe(true);
        await dialog.locator('.ant-modal-close').click();

        // A running task opens on its live log.
        const taskId = await runTask(token, spiderId, '40');
        await waitForStatus(token, taskId, ['running']);
        await page.goto(`${env.url}/tasks/${taskId}`);
        await view(page).locator('[data-testid=log-view]').waitFor();
        await expect
          .poll(() => view(page).locator('.task-detail-tabs .ant-tabs-tab-active [data-testid=tab-log]').count(), WAIT)
          .toBe(1);
        await screenshot(page, `polish-live-log-${lang}`);

        // Deleting the spider while its task runs: confirmed, no uncaught error whatever the server answers.
        await page.goto(`${env.url}/spiders`);
        const row = view(page).locator('tr', { hasText: spiderName });
        await row.locator('[data-testid=spider-delete]').click();
        await page.locator('[data-testid=confirm-delete]').click();
        await expect.poll(() => page.locator('.ant-modal-confirm').count(), { timeout: 15_000 }).toBe(0);

        // A Scrapy spider whose command names its spider: the picker shows that name chosen.
        const scrapyId = (
          await call<{ _id: string }>(token, 'PUT', '/spiders', {
            name: `polish-scrapy-${lang}`,
            cmd: 'scrapy crawl quotes',
            is_scrapy: true,
          })
        )._id;
        await page.goto(`${env.url}/spiders/${scrapyId}`);
        await view(page).locator('[data-testid=spider-run]').click();
        await dialog.waitFor();
        await expect
          .poll(() => dialog.locator('.run-scrapy-spider .ant-select-selection-item').innerText(), WAIT)
          .toBe('quotes');
        await screenshot(page, `polish-scrapy-picker-${lang}`);
        await dialog.locator('.ant-modal-close').click();

        // Results: "CSV for Excel" asks the server for a byte order mark.
        const other = await createSpider(token, `polish-csv-${lang}`);
        const done = await runTask(token, other, '2');
        await waitForStatus(token, done, ['finished']);
        await page.goto(`${env.url}/tasks/${done}?tab=results`);
        const results = view(page).locator('[data-testid=results-panel]');
        await expect.poll(() => results.locator('.ant-table-tbody tr.ant-table-row').count(), WAIT).toBe(2);
        await results.locator('[data-testid=results-download-more]').click();
        const [request, download] = await Promise.all([
          page.waitForRequest((r) => r.url().includes(`/api/tasks/${done}/results/download`)),
          page.waitForEvent('download'),
          page.locator('[data-testid=results-download-bom]').click(),
        ]);
        expect(new URL(request.url()).searchParams.get('bom')).toBe('1');
        expect(new URL(request.url()).searchParams.get('neutralise')).toBeNull(); // formulas protected by default
        expect(download.suggestedFilename()).toBe(`polish-csv-${lang}-${done}.csv`);
        // "CSV with formulas kept" turns the protection off for this download.
        await results.locator('[data-testid=results-download-more]').click();
        const [raw] = await Promise.all([
          page.waitForRequest((r) => r.url().includes(`/api/tasks/${done}/results/download`)),
          page.waitForEvent('download'),
          page.locator('[data-testid=results-download-raw]').click(),
        ]);
        expect(new URL(raw.url()).searchParams.get('neutralise')).toBe('0');
        expect(new URL(raw.url()).searchParams.get('bom')).toBeNull();
      },
      { timeout: 150_000 },
    );
  }
});

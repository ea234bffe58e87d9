/**
 * Tasks and nodes journey, in en and zh, on a master with its embedded node: a spider that prints lines
 * and emits items is run from the console's Run dialog; its log grows live (SSE, not page reloads), error lines
 * are highlighted and jumped to, results are shown and downloaded as <spider>-<task id>.csv; a long-running task is cancelled
 * (status Cancelled, process group gone) and restarted; the task list refreshes live; the node list shows the
 * master online with the join panel and the network graph. One screenshot per screen per language in
 * test-output/screens/.
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { e2eTest, useE2E } from './harness.ts';
import { shot, signIn } from './journey.ts';
import { groupAlive } from '../packages/server/test/nodes.helpers.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E({ master: { embeddedNode: true } });

/** Prints `n` lines (every 10th an ERROR line) and emits one item per line to $CRAWLDECK_ITEMS, `delay` s apart. */
const EMIT_PY = `import json, os, sys, time
n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
with open(os.environ['CRAWLDECK_ITEMS'], 'a', encoding='utf-8') as f:
    for i in range(1, n + 1):
        print('fetched page %d' % i, flush=True)
        if i % 10 == 0:
            print('ERROR: simulated failure at %d' % i, flush=True)
        f.write(json.dumps({'n': i, 'title': '标题 %d' % i, 'url': 'https://example.com/%d' % i, 'note': 'has, comma "quoted"'}, ensure_ascii=False) + '\\n')
        f.flush()
        time.sleep(delay)
print('done', flush=True)
`;

const call = apiCaller(() => env.url);

const screen = (page: Page, name: string) => shot(page, name, { top: true, settleMs: 500 });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const view = (page: Page) => page.locator('.app-view:visible');

/**
 * Confirms a task action in its dialog and waits until the dialog has closed: it closes once the master has
 * answered the action. The task's new status can show earlier (it comes with the task's status event), so a journey
 * that went on at the status could click the next control while the dialog and its mask still covered the page.
 */
async function confirmAction(page: Page, kind: 'cancel' | 'restart' | 'delete'): Promise<void> {
  const dialog = page.locator(`.task-confirm-${kind}`);
  // The dialog zooms in: on a slow machine a click while it still grows can land beside its button.
  await page.locator(`.task-confirm-${kind}:not(.ant-zoom-appear)`).waitFor();
  await dialog.locator(`.confirm-${kind}`).click();
  await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
}

async function createSpider(token: string, name: string): Promise<string> {
  const s = await call<{ _id: string }>(token, 'PUT', '/spiders', { name, cmd: 'python3 emit.py' });
  await call(token, 'POST', `/spiders/${s._id}/file`, { path: 'emit.py', content: EMIT_PY });
  return s._id;
}

const TEXT = {
  en: {
    running: 'Running',
    finished: 'Finished',
    cancelled: 'Cancelled',
    online: 'Online',
    log: 'Log',
    results: 'Results',
    join: 'How to add a node',
    notInstalled: 'Not Installed',
    pageOf: (page: number, pages: number) => `Page ${page} of ${pages}`,
  },
  zh: {
    running: '进行中',
    finished: '已完成',
    cancelled: '已取消',
    online: '在线',
    log: '日志',
    results: '结果',
    join: '如何添加节点',
    notInstalled: '未安装',
    pageOf: (page: number, pages: number) => `第 ${page} / ${pages} 页`,
  },
} as const;

describe('tasks and nodes', () => {
  for (const lang of ['en', 'zh'] as const) {
    const tx = TEXT[lang];

    e2eTest(
      `${lang}: run a spider from the console, live log, errors, results, CSV`,
      async ({ page }) => {
        const token = await signIn(page, lang);
        const spiderName = `e2e-emit-${lang}`;
        const spiderId = await createSpider(token, spiderName);

        // Run from the spider list row: the dialog, param appended to the command.
        await page.goto(`${env.url}/spiders`);
        const row = view(page).locator('tr', { hasText: spiderName });
        await row.waitFor();
        await row.locator('[data-testid=spider-run]').click();
        const dialog = page.locator('.run-dialog');
        await dialog.waitFor();
        await dialog.locator('input.run-param').fill('60 0.3');
        await expect
          .poll(() => dialog.locator('[data-testid=run-cmd-preview]').innerText())
          .toBe('python3 emit.py 60 0.3');
        await screen(page, `run-dialog-${lang}`);
        await dialog.locator('.run-submit').click();
        await page.locator('.run-started .run-view-task').click();
        await page.waitForURL(/\/tasks\/[0-9a-f]{24}/);
        const taskId = /\/tasks\/([0-9a-f]{24})/.exec(page.url())![1];

        // Log tab: lines arrive while the task runs, pushed over SSE (no page refetch per line).
        const logFetches: string[] = [];
        const onReq = (r: Request) => {
          if (r.url().includes(`/api/tasks/${taskId}/log`)) logFetches.push(r.url());
        };
        page.on('request', onReq);
        await view(page).locator('[data-testid=tab-log]').click();
        const logView = view(page).locator('[data-testid=log-view]');
        await view(page).locator(`.task-status-running`).first().waitFor({ timeout: 20_000 });
        await expect.poll(() => logView.locator('.log-line').count(), { timeout: 15_000 }).toBeGreaterThan(3);
        const early = await logView.locator('.log-line').count();
        // While running the log ends with the end marker and an empty line, where new lines will appear.
        await logView.locator('[data-testid=log-end-marker][data-state=running]').waitFor();
        expect(await logView.locator('.log-end-blank').count()).toBe(1);
        await expect.poll(() => logView.locator('.log-line').count(), { timeout: 15_000 }).toBeGreaterThan(early + 5);
        const fetchesWhileGrowing = logFetches.length;
        expect(fetchesWhileGrowing).toBeLessThanOrEqual(3); // the page is not re-fetched per line: lines are pushed
        await screen(page, `task-log-running-${lang}`);

        // It ends: the end marker, all 66 lines + 'done', six error lines highlighted.
        await logView.locator('[data-testid=log-end-marker][data-state=ended]').waitFor({ timeout: 60_000 });
        page.off('request', onReq);
        await expect.poll(() => logView.locator('.log-line').count()).toBe(67);
        await expect.poll(() => logView.locator('.log-line.is-error').count()).toBe(6);
        expect(await logView.locator('.log-end-blank').count()).toBe(0);
        expect(await view(page).locator('.task-detail-header .task-status').innerText()).toContain(tx.finished);
        // Jump to the next error twice: the 11th and then the 22nd line are the current ones.
        await view(page).locator('[data-testid=log-next-error]').click();
        await expect.poll(() => logView.locator('.log-line.is-current').getAttribute('data-line')).toBe('11');
        await view(page).locator('[data-testid=log-next-error]').click();
        await expect.poll(() => logView.locator('.log-line.is-current').getAttribute('data-line')).toBe('22');
        // Keyword search.
        await view(page).locator('.log-panel .ant-input-search input').fill('failure at 3');
        await view(page).locator('.log-panel .ant-input-search input').press('Enter');
        await expect.poll(() => logView.locator('.log-line').count()).toBe(1);
        expect(await logView.locator('.log-line mark').innerText()).toBe('failure at 3');
        await view(page).locator('.log-panel .ant-input-search input').fill('');
        await expect.poll(() => logView.locator('.log-line').count()).toBe(67);
        await screen(page, `task-log-${lang}`);

        // Overview.
        await view(page).locator('[data-testid=tab-overview]').click();
        await expect.poll(() => view(page).locator('[data-testid=task-result-count]').innerText()).toBe('60');
        expect(await view(page).locator('[data-testid=task-overview]').innerText()).toContain(spiderName);
        await screen(page, `task-overview-${lang}`);

        // Results: 60 rows, 10 per page, columns from the first row's keys; Download CSV.
        await view(page).locator('[data-testid=tab-results]').click();
        const results = view(page).locator('[data-testid=results-panel]');
        await expect.poll(() => results.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(10);
        const headers = await results.locator('.ant-table-thead th').allInnerTexts();
        for (const k of ['n', 'title', 'url', 'note']) expect(headers).toContain(k);
        expect(await results.locator('.ant-table-tbody').innerText()).toContain('标题 1');
        await screen(page, `task-results-${lang}`);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          results.locator('[data-testid=results-download]').click(),
        ]);
        expect(download.suggestedFilename()).toBe(`${spiderName}-${taskId}.csv`);
        const csv = readFileSync((await download.path())!, 'utf8');
        const lines = csv.trim().split(/\r?\n/);
        expect(lines).toHaveLength(61);
        expect(lines[0].split(',')).toEqual(expect.arrayContaining(['n', 'title', 'url', 'note']));
        expect(csv).toContain('标题 60');
        expect(csv).toContain('"has, comma ""quoted"""');

        // The spider's Tasks and Deploys tabs.
        await page.goto(`${env.url}/spiders/${spiderId}?tab=tasks`);
        await view(page).locator(`[data-testid=spider-task-table] .task-link[data-task-id="${taskId}"]`).waitFor();
        await screen(page, `spider-tasks-${lang}`);
        await view(page).locator('[data-testid=tab-deploys]').click();
        await expect
          .poll(() => view(page).locator('[data-testid=spider-deploys] .ant-table-tbody tr.ant-table-row').count())
          .toBeGreaterThanOrEqual(1);
        await screen(page, `spider-deploys-${lang}`);
      },
      { timeout: 120_000 },
    );

    e2eTest(
      `${lang}: cancel a long-running task (process gone), restart it, task list updates live`,
      async ({ page }) => {
        const token = await signIn(page, lang);
        const spiderId = await createSpider(token, `e2e-long-${lang}`);
        const [taskId] = await call<string[]>(token, 'PUT', '/tasks', {
          spider_id: spiderId,
          run_type: 'random',
          param: '100000 0.2',
        });

        // The task list shows it running, and updates live when another task is created behind its back.
        await page.goto(`${env.url}/tasks`);
        const list = view(page).locator('[data-testid=task-table]');
        await list.locator(`.task-link[data-task-id="${taskId}"] .task-status-running`).waitFor({ timeout: 20_000 });
        const before = await list.locator('tr.ant-table-row').count();
        const [extra] = await call<string[]>(token, 'PUT', '/tasks', {
          spider_id: spiderId,
          run_type: 'random',
          param: '3 0',
        });
        await list.locator(`.task-link[data-task-id="${extra}"]`).waitFor({ timeout: 10_000 });
        await list.locator(`.task-link[data-task-id="${extra}"] .task-status-finished`).waitFor({ timeout: 20_000 });
        expect(await list.locator('tr.ant-table-row').count()).toBeGreaterThanOrEqual(Math.min(before + 1, 10));
        await screen(page, `tasks-${lang}`);

        // Filter by status.
        await view(page).locator('[data-testid=task-filter-status]').click();
        await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: tx.finished }).click();
        await expect
          .poll(() => list.locator(`.task-link[data-task-id="${taskId}"]`).count(), { timeout: 15_000 })
          .toBe(0);
        await list.locator(`.task-link[data-task-id="${extra}"]`).waitFor();

        // Detail: cancel. Status Cancelled, the process group is gone.
        const running = await call<{ pid: number | null; status: string }>(token, 'GET', `/tasks/${taskId}`);
        expect(running.status).toBe('running');
        expect(running.pid).toBeGreaterThan(0);
        const pid = running.pid!;
        expect(alive(pid)).toBe(true);
        // A running task opens on its live log; the status is read on the Overview tab.
        await page.goto(`${env.url}/tasks/${taskId}`);
        await view(page).locator('.task-detail-tabs .ant-tabs-tab-active [data-testid=tab-log]').waitFor();
        await view(page).locator('[data-testid=tab-overview]').click();
        await view(page).locator('[data-testid=task-cancel]').click();
        await confirmAction(page, 'cancel');
        await view(page).locator('[data-testid=task-status] .task-status-cancelled').waitFor({ timeout: 15_000 });
        expect(await view(page).locator('[data-testid=task-status]').innerText()).toContain(tx.cancelled);
        // Cancelled shows as soon as the master records the request; the process is gone once the node reports the
        // task's end (its exit code), which it does after stopping the whole process group.
        await expect
          .poll(async () => (await call<{ exit_code: number | null }>(token, 'GET', `/tasks/${taskId}`)).exit_code, {
            timeout: 60_000,
            interval: 200,
          })
          .not.toBeNull();
        expect(alive(pid)).toBe(false);
        await expect.poll(() => groupAlive(pid), { timeout: 5_000 }).toBe(false);
        expect((await call<{ status: string }>(token, 'GET', `/tasks/${taskId}`)).status).toBe('cancelled');
        await view(page).locator('[data-testid=task-cancel]').waitFor({ state: 'detached' });
        await screen(page, `task-cancelled-${lang}`);

        // Restart: a new task with the same spider and param opens.
        await view(page).locator('[data-testid=task-restart]').click();
        await confirmAction(page, 'restart');
        await page.waitForURL((u) => /\/tasks\/[0-9a-f]{24}/.test(u.pathname) && !u.pathname.endsWith(taskId));
        const newId = /\/tasks\/([0-9a-f]{24})/.exec(page.url())![1];
        const restarted = await call<{ param: string; spider_id: string; status: string }>(
          token,
          'GET',
          `/tasks/${newId}`,
        );
        expect(restarted.spider_id).toBe(spiderId);
        expect(restarted.param).toBe('100000 0.2');
        // the new task opens on its live log; the header shows it running
        await view(page).locator('.task-detail-header .task-status-running').waitFor({ timeout: 20_000 });
        await view(page).locator('.task-detail-tabs .ant-tabs-tab-active [data-testid=tab-log]').waitFor();

        // Batch cancel from the list, then batch delete.
        await page.goto(`${env.url}/tasks`);
        const row = list.locator('tr.ant-table-row', { has: page.locator(`.task-link[data-task-id="${newId}"]`) });
        await row.locator('.ant-checkbox-input').check();
        await view(page).locator('[data-testid=task-batch-cancel]').click();
        await confirmAction(page, 'cancel');
        await row.locator('.task-status-cancelled').waitFor({ timeout: 15_000 });
        const extraRow = list.locator('tr.ant-table-row', { has: page.locator(`.task-link[data-task-id="${extra}"]`) });
        await extraRow.locator('.ant-checkbox-input').check();
        await view(page).locator('[data-testid=task-batch-delete]').click();
        await confirmAction(page, 'delete');
        await expect
          .poll(() => list.locator(`.task-link[data-task-id="${extra}"]`).count(), { timeout: 15_000 })
          .toBe(0);
        const left = await call<{ _id: string }[]>(token, 'GET', `/tasks?spider_id=${spiderId}&page_size=100`);
        expect(left.map((t) => t._id)).not.toContain(extra);
      },
      // Two minutes were nearly used up once on a machine loaded about ten times over its cores.
      { timeout: 180_000 },
    );

    e2eTest(
      `${lang}: the task list pages by cursor: next, previous, last, with the total`,
      async ({ page }) => {
        const token = await signIn(page, lang);
        const spiderId = await createSpider(token, `e2e-pages-${lang}`);
        for (let i = 0; i < 12; i++)
          await call<string[]>(token, 'PUT', '/tasks', { spider_id: spiderId, run_type: 'random', param: '1 0' });
        const all = await call<{ _id: string }[]>(token, 'GET', '/tasks?page_size=100');
        const total = all.length;
        const pages = Math.ceil(total / 10);
        await page.goto(`${env.url}/tasks`);
        const list = view(page).locator('[data-testid=task-table]');
        const pager = view(page).locator('[data-testid=task-pager]');
        const shownIds = () =>
          list.locator('.task-link').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-task-id')));
        await expect.poll(shownIds, { timeout: 15_000 }).toEqual(all.slice(0, 10).map((t) => t._id));
        await expect.poll(() => pager.locator('[data-testid=task-pager-total]').innerText()).toContain(String(total));
        expect(await pager.locator('[data-testid=task-pager-page]').innerText()).toBe(tx.pageOf(1, pages));
        expect(await pager.locator('[data-testid=task-pager-prev]').isDisabled()).toBe(true);

        await pager.locator('[data-testid=task-pager-next]').click();
        await expect.poll(shownIds).toEqual(all.slice(10, 20).map((t) => t._id));
        expect(await pager.locator('[data-testid=task-pager-page]').innerText()).toBe(tx.pageOf(2, pages));
        await pager.locator('[data-testid=task-pager-prev]').click();
        await expect.poll(shownIds).toEqual(all.slice(0, 10).map((t) => t._id));
        await pager.locator('[data-testid=task-pager-last]').click();
        await expect.poll(shownIds).toEqual(all.slice(-10).map((t) => t._id));
        expect(await pager.locator('[data-testid=task-pager-page]').innerText()).toBe(tx.pageOf(pages, pages));
        expect(await pager.locator('[data-testid=task-pager-next]').isDisabled()).toBe(true);
        await screen(page, `tasks-last-page-${lang}`);
      },
      { timeout: 120_000 },
    );

    e2eTest(
      `${lang}: node list shows the master online, join panel, network, node detail`,
      async ({ page }) => {
        await signIn(page, lang);
        await page.goto(`${env.url}/nodes`);
        const table = view(page).locator('[data-testid=node-table]');
        const master = table.locator('tr.ant-table-row', { has: page.locator('.node-type-master') });
        await master.locator('.node-status-online').waitFor({ timeout: 20_000 });
        expect(await master.locator('.node-status-online').innerText()).toBe(tx.online);
        // The rows shown are watched: the master's last heartbeat moves on without a reload.
        const seen = master.locator('.node-last-seen');
        const firstSeen = await seen.innerText();
        await expect.poll(() => seen.innerText(), { timeout: 15_000 }).not.toBe(firstSeen);
        // The master filters the list: a keyword no node has empties it, clearing it brings the master back.
        const search = view(page).locator('input[data-testid=node-search]');
        await search.fill('no-such-node');
        await search.press('Enter');
        await expect.poll(() => table.locator('tr.ant-table-row').count()).toBe(0);
        await search.fill('');
        await search.press('Enter');
        await master.locator('.node-status-online').waitFor();
        const join = view(page).locator('[data-testid=node-join]');
        expect(await join.innerText()).toContain(tx.join);
        expect(await join.locator('[data-testid=node-join-cmd]').innerText()).toMatch(
          /crawldeck-node --master http:\/\/\S+ --key-file \S+/,
        );
        await screen(page, `nodes-${lang}`);

        await view(page).locator('[data-testid=nodes-view] .ant-segmented-item').nth(1).click();
        await view(page).locator('[data-testid=node-network] canvas').waitFor();
        await screen(page, `nodes-network-${lang}`);

        await view(page).locator('[data-testid=nodes-view] .ant-segmented-item').nth(0).click();
        await master.locator('.node-link').click();
        await page.waitForURL(/\/nodes\/[0-9a-f]{24}/);
        await view(page).locator('[data-testid=node-overview]').waitFor();
        await screen(page, `node-overview-${lang}`);
        await view(page).locator('[data-testid=tab-installation]').click();
        const inst = view(page).locator('[data-testid=node-installation]');
        await inst.waitFor();
        expect(await inst.locator('tr', { hasText: 'python3' }).locator('.ant-tag').innerText()).not.toBe(
          tx.notInstalled,
        );
        await screen(page, `node-installation-${lang}`);
        await view(page).locator('[data-testid=tab-monitor]').click();
        await view(page).locator('[data-testid=node-monitor] canvas').waitFor({ timeout: 20_000 });
        await screen(page, `node-monitor-${lang}`);
        await view(page).locator('[data-testid=tab-network]').click();
        await view(page).locator('[data-testid=node-network] canvas').waitFor();
        await screen(page, `node-network-${lang}`);
      },
      { timeout: 90_000 },
    );
  }
});

/**
 * Operator polish journeys, in en and zh, on a master with its embedded node: a normal user's screens hold no
 * admin-only actions; the task Overview counts its one stored line and one error line in the singular; a schedule's
 * Tasks drawer shows translated statuses and the list keeps a seconds field other than 0; deleting a spider whose
 * task runs shows the server's reason in exactly one toast; the task list keeps its filters in the address across a
 * reload, enables batch Cancel only for a selection with a live task and confirms with "Cancel tasks" / "Keep running";
 * results download as CSV, JSON, JSON Lines and xlsx, each named after the spider and the task; six forms submitted
 * with a field in error say 'Unable to submit because of some errors'.
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, loginByApi, screenshot, useE2E } from './harness.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E({ master: { embeddedNode: true } });
const view = (page: Page) => page.locator('.app-view:visible');
/** How long a screen may take to show what a step waits for on a busy machine. */
const WAIT = { timeout: 15_000 };

const call = apiCaller(() => env.url);

/** Prints one line, an error line, and stops. */
const ONE_ERROR_PY = `print('ERROR: the only line', flush=True)\n`;
/** Emits two items, one of them with Chinese text. */
const ITEMS_PY = `import json, os
with open(os.environ['CRAWLDECK_ITEMS'], 'a', encoding='utf-8') as f:
    for i in (1, 2):
        f.write(json.dumps({'n': i, 'title': '标题 %d' % i}, ensure_ascii=False) + '\\n')
`;
/** Prints a line a second until stopped. */
const SLOW_PY = `import time
for i in range(120):
    print('line %d' % i, flush=True)
    time.sleep(1)
`;

async function createSpider(token: string, name: string, file: string, content: string): Promise<string> {
  const s = await call<{ _id: string }>(token, 'PUT', '/spiders', { name, cmd: `python3 ${file}` });
  await call(token, 'POST', `/spiders/${s._id}/file`, { path: file, content });
  return s._id;
}

async function runTask(token: string, spiderId: string): Promise<string> {
  const ids = await call<string[]>(token, 'PUT', '/tasks', { spider_id: spiderId, run_type: 'random' });
  return ids[0];
}

async function waitForStatus(token: string, taskId: string, statuses: string[]): Promise<void> {
  await expect
    .poll(async () => (await call<{ status: string }>(token, 'GET', `/tasks/${taskId}`)).status, { timeout: 60_000 })
    .toSatisfy((s: string) => statuses.includes(s));
}

const TEXT = {
  en: {
    blocked: 'Unable to submit because of some errors',
    usersAdminOnly: 'Only administrators can see and manage users.',
    webhooksAdminOnly: 'Only administrators can see and change the notification webhooks.',
    addWebhook: 'Add Webhook',
    logStored: '1 line stored on the master, 1 error line',
    finished: 'Finished',
    everyTen: /every 10 seconds/i,
    liveTask: 'the spider cannot be deleted: a task of this spider is pending or running',
    cancelOk: 'Cancel tasks',
    keepRunning: 'Keep running',
  },
  zh: {
    blocked: '存在错误，无法提交',
    usersAdminOnly: '只有管理员可以查看和管理用户。',
    webhooksAdminOnly: '只有管理员可以查看和修改通知 Webhook。',
    addWebhook: '添加 Webhook',
    logStored: '主节点已保存 1 行，其中错误行 1 行',
    finished: '已完成',
    everyTen: /10 秒/,
    liveTask: '无法删除此爬虫：它有等待中或运行中的任务',
    cancelOk: '取消任务',
    keepRunning: '继续运行',
  },
};

describe('operator polish', () => {
  for (const lang of ['en', 'zh'] as const) {
    const tx = TEXT[lang];

    e2eTest(`${lang}: a normal user sees no Add User or Add Webhook, only why`, async ({ page }) => {
      const admin = await loginByApi(page, lang);
      const username = `operator_${lang}`;
      await call(admin, 'PUT', '/users-add', { username, password: 'normal-pass', role: 'normal' });

      // The administrator has the actions.
      await page.goto(`${env.url}/setting?tab=notifications`);
      await view(page).locator('[data-subtab=webhooks]').click();
      await expect.poll(() => view(page).locator('.webhook-add').innerText(), WAIT).toBe(tx.addWebhook);

      await loginByApi(page, lang, { username, password: 'normal-pass' });
      await page.evaluate(() => localStorage.removeItem('user_info'));
      let refused = 0;
      page.on('response', (r) => {
        if (r.status() === 403) refused++;
      });
      await page.goto(`${env.url}/users`);
      await expect
        .poll(() => view(page).locator('[data-testid=users-admin-only]').innerText(), WAIT)
        .toBe(tx.usersAdminOnly);
      expect(await page.locator('[data-testid=add-user]').count()).toBe(0);
      await screenshot(page, `operator-users-normal-${lang}`);

      await page.goto(`${env.url}/setting?tab=notifications`);
      await expect
        .poll(() => view(page).locator('[data-testid=webhooks-admin-only]').innerText(), WAIT)
        .toBe(tx.webhooksAdminOnly);
      expect(await page.locator('.webhook-add').count()).toBe(0);
      await page.waitForLoadState('networkidle');
      expect(refused).toBe(0);
      expect(await page.locator('.ant-message-notice').count()).toBe(0);
      await screenshot(page, `operator-notifications-normal-${lang}`);
    });

    e2eTest(
      `${lang}: the task Overview counts one stored line and one error line in the singular`,
      async ({ page }) => {
        const token = await loginByApi(page, lang);
        const spiderId = await createSpider(token, `operator-one-${lang}`, 'one.py', ONE_ERROR_PY);
        const taskId = await runTask(token, spiderId);
        await waitForStatus(token, taskId, ['finished', 'error']);
        const task = await call<{ log_count: number; error_log_count: number }>(token, 'GET', `/tasks/${taskId}`);
        expect(task).toMatchObject({ log_count: 1, error_log_count: 1 });

        await page.goto(`${env.url}/tasks/${taskId}?tab=overview`);
        await expect
          .poll(() => view(page).locator('[data-testid=task-log-stored]').innerText(), WAIT)
          .toBe(tx.logStored);
        await screenshot(page, `operator-overview-plurals-${lang}`);
      },
    );

    e2eTest(
      `${lang}: a schedule every 10 seconds keeps its seconds field; its Tasks drawer shows translated statuses`,
      async ({ page }) => {
        const token = await loginByApi(page, lang);
        const spider = await call<{ _id: string }>(token, 'PUT', '/spiders', {
          name: `operator-sched-${lang}`,
          cmd: 'echo scheduled',
        });
        const name = `operator-every-ten-${lang}`;
        const schedule = await call<{ _id: string }>(token, 'PUT', '/schedules', {
          name,
          cron: '*/10 * * * * *',
          spider_id: spider._id,
          timezone: 'UTC',
        });
        // Wait for one of its tasks to finish, then stop it firing.
        await expect
          .poll(
            async () =>
              (await call<{ status: string }[]>(token, 'GET', `/schedules/${schedule._id}/tasks?page_size=50`)).some(
                (t) => t.status === 'finished',
              ),
            { timeout: 60_000 },
          )
          .toBe(true);
        await call(token, 'POST', `/schedules/${schedule._id}/disable`);

        await page.goto(`${env.url}/schedules`);
        const row = view(page).locator('.schedule-table tr', { hasText: name });
        await row.waitFor();
        expect((await row.locator('.schedule-cron').innerText()).trim()).toBe('*/10 * * * * *');
        expect(await row.locator('.schedule-cron-text').innerText()).toMatch(tx.everyTen);

        await row.locator('.schedule-tasks').click();
        const drawer = page.locator('.schedule-tasks-drawer');
        await drawer.locator('.task-status-finished').first().waitFor();
        expect(await drawer.locator('.task-status-finished').first().innerText()).toBe(tx.finished);
        expect(await drawer.locator('.schedule-tasks-table .ant-table-tbody').innerText()).not.toContain('finished');
        await screenshot(page, `operator-schedule-drawer-${lang}`);
      },
      { timeout: 90_000 },
    );

    e2eTest(`${lang}: deleting a spider whose task runs shows the server's reason in one toast`, async ({ page }) => {
      const token = await loginByApi(page, lang);
      const spiderName = `operator-busy-${lang}`;
      const spiderId = await createSpider(token, spiderName, 'slow.py', SLOW_PY);
      const taskId = await runTask(token, spiderId);
      await waitForStatus(token, taskId, ['running']);

      await page.goto(`${env.url}/spiders`);
      const row = view(page).locator('tr', { hasText: spiderName });
      await row.locator('[data-testid=spider-delete]').click();
      const [refusal] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/api/spiders/${spiderId}`) && r.request().method() === 'DELETE'),
        page.locator('[data-testid=confirm-delete]').click(),
      ]);
      expect(refusal.status()).toBe(409);
      const toast = page.locator('.ant-message-notice', { hasText: tx.liveTask });
      await toast.waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.locator('.ant-message-notice').count()).toBe(1);
      expect(await toast.innerText()).not.toContain('/api/');
      await screenshot(page, `operator-delete-refused-${lang}`);

      await call(token, 'POST', `/tasks/${taskId}/cancel`);
      await waitForStatus(token, taskId, ['cancelled']);
    });

    e2eTest(
      `${lang}: the task list keeps its filters across a reload; Cancel only for live tasks, confirmed without "Cancel"`,
      async ({ page }) => {
        const token = await loginByApi(page, lang);
        const slowId = await createSpider(token, `operator-live-${lang}`, 'slow.py', SLOW_PY);
        const oneId = await createSpider(token, `operator-ended-${lang}`, 'one.py', ONE_ERROR_PY);
        const ended = await runTask(token, oneId);
        await waitForStatus(token, ended, ['finished']);
        const live = await runTask(token, slowId);
        await waitForStatus(token, live, ['running']);

        await page.goto(`${env.url}/tasks`);
        const list = view(page).locator('[data-testid=task-table]');
        await list.locator(`.task-link[data-task-id="${live}"]`).waitFor();
        await view(page).locator('[data-testid=task-filter-status]').click();
        await page.locator('.ant-select-dropdown:visible .ant-select-item-option .task-status-finished').click();
        await page.waitForURL((u) => u.searchParams.get('status') === 'finished');
        await expect.poll(() => list.locator(`.task-link[data-task-id="${live}"]`).count(), WAIT).toBe(0);

        // A reload shows the same filter and the same tasks.
        await page.reload();
        await list.locator(`.task-link[data-task-id="${ended}"]`).waitFor();
        await view(page).locator('[data-testid=task-filter-status] .task-status-finished').waitFor();
        expect(await list.locator(`.task-link[data-task-id="${live}"]`).count()).toBe(0);

        // Only an ended task chosen: nothing to cancel.
        const rowOf = (id: string) => list.locator('tr.ant-table-row', { has: page.locator(`[data-task-id="${id}"]`) });
        await rowOf(ended).locator('.ant-checkbox-input').check();
        expect(await view(page).locator('[data-testid=task-batch-cancel]').isDisabled()).toBe(true);
        await screenshot(page, `operator-task-filter-${lang}`);

        // Without the filter, a live task joins the selection: Cancel asks, and "Keep running" keeps it running.
        await page.locator('[data-testid=task-filter-status] .ant-select-clear').click({ force: true });
        await page.waitForURL((u) => !u.searchParams.has('status'));
        await rowOf(live).locator('.ant-checkbox-input').check();
        await rowOf(ended).locator('.ant-checkbox-input').check();
        const cancel = view(page).locator('[data-testid=task-batch-cancel]');
        expect(await cancel.isEnabled()).toBe(true);
        await cancel.click();
        const dialog = page.locator('.task-confirm-cancel');
        await dialog.waitFor();
        const buttons = await dialog.locator('.ant-modal-confirm-btns button').allInnerTexts();
        expect(buttons.map((b) => b.replace(/\s+/g, ''))).toEqual(
          [tx.keepRunning, tx.cancelOk].map((b) => b.replace(/\s+/g, '')),
        );
        await screenshot(page, `operator-task-cancel-dialog-${lang}`);
        await dialog.locator('.ant-modal-confirm-btns button', { hasText: tx.keepRunning }).click();
        await dialog.waitFor({ state: 'detached' });
        expect((await call<{ status: string }>(token, 'GET', `/tasks/${live}`)).status).toBe('running');

        await call(token, 'POST', `/tasks/${live}/cancel`);
        await waitForStatus(token, live, ['cancelled']);
      },
      { timeout: 90_000 },
    );

    e2eTest(
      `${lang}: results download as CSV, JSON, JSON Lines and xlsx, named after the spider and task`,
      async ({ page }) => {
        const token = await loginByApi(page, lang);
        const spiderName = `operator-export-${lang}`;
        const spiderId = await createSpider(token, spiderName, 'items.py', ITEMS_PY);
        const taskId = await runTask(token, spiderId);
        await waitForStatus(token, taskId, ['finished']);

        await page.goto(`${env.url}/tasks/${taskId}?tab=results`);
        const results = view(page).locator('[data-testid=results-panel]');
        await expect.poll(() => results.locator('.ant-table-tbody tr.ant-table-row').count(), WAIT).toBe(2);
        const save = async (testId: string, fromMenu: boolean) => {
          if (fromMenu) await results.locator('[data-testid=results-download-more]').click();
          const [download] = await Promise.all([
            page.waitForEvent('download'),
            page.locator(`[data-testid=${testId}]`).click(),
          ]);
          return { name: download.suggestedFilename(), body: readFileSync((await download.path())!) };
        };

        const csv = await save('results-download', false);
        expect(csv.name).toBe(`${spiderName}-${taskId}.csv`);
        expect(csv.body.toString('utf8')).toContain('标题 2');
        await results.locator('[data-testid=results-download-more]').click();
        await page.locator('[data-testid=results-download-xlsx]').waitFor();
        await screenshot(page, `operator-results-menu-${lang}`);
        await page.keyboard.press('Escape');

        const json = await save('results-download-json', true);
        expect(json.name).toBe(`${spiderName}-${taskId}.json`);
        expect((JSON.parse(json.body.toString('utf8')) as { title: string }[]).map((r) => r.title).sort()).toEqual([
          '标题 1',
          '标题 2',
        ]);
        const jsonl = await save('results-download-jsonl', true);
        expect(jsonl.name).toBe(`${spiderName}-${taskId}.jsonl`);
        expect(jsonl.body.toString('utf8').trim().split('\n')).toHaveLength(2);
        const xlsx = await save('results-download-xlsx', true);
        expect(xlsx.name).toBe(`${spiderName}-${taskId}.xlsx`);
        expect(xlsx.body.subarray(0, 2).toString('latin1')).toBe('PK'); // a zip, as every xlsx workbook is
      },
    );

    e2eTest(`${lang}: six forms with a field in error say they cannot be submitted`, async ({ page }) => {
      const token = await loginByApi(page, lang);
      const spiderId = await createSpider(token, `operator-forms-${lang}`, 'one.py', ONE_ERROR_PY);
      const nodes = await call<{ _id: string }[]>(token, 'GET', '/nodes');
      await page.goto(`${env.url}/home`);
      await page.locator('.app-wrapper').waitFor();
      // Every toast that appears is recorded, so each form's own toast is counted even while an earlier one shows.
      await page.evaluate(() => {
        const seen: Element[] = [];
        (window as unknown as { toasts: Element[] }).toasts = seen;
        new MutationObserver(() => {
          for (const n of Array.from(document.querySelectorAll('.ant-message-notice')))
            if (!seen.includes(n)) seen.push(n);
        }).observe(document.body, { childList: true, subtree: true });
      });
      const blockedToasts = () =>
        page.evaluate(
          (text) =>
            (window as unknown as { toasts: Element[] }).toasts.filter((x) => (x.textContent ?? '').includes(text))
              .length,
          tx.blocked,
        );
      const modal = page.locator('.ant-modal-wrap:visible .ant-modal');
      let expected = 0;
      const expectBlocked = async (form: string) => {
        expected++;
        await expect.poll(blockedToasts, { ...WAIT, message: form }).toBe(expected);
        expect(await page.locator('.ant-form-item-explain-error').count(), form).toBeGreaterThan(0);
      };
      // Moves between screens without reloading, so the recorder stays.
      const open = async (path: string) => {
        await page.evaluate((p) => {
          window.history.pushState(null, '', p);
          window.dispatchEvent(new PopStateEvent('popstate'));
        }, path);
      };

      await open('/setting');
      await view(page).locator('[data-tab=password]').click();
      await view(page).locator('[data-testid=change-password]').click();
      await expectBlocked('password');

      await view(page).locator('[data-tab=tokens]').click();
      await view(page).locator('[data-testid=add-token]').click();
      await modal.locator('.ant-modal-footer .ant-btn-primary').click();
      await expectBlocked('token');
      await modal.locator('.ant-modal-close').click();

      await view(page).locator('[data-tab=globalVariable]').click();
      await view(page).locator('[data-testid=add-variable]').click();
      await modal.locator('.ant-modal-footer .ant-btn-primary').click();
      await expectBlocked('variable');
      await modal.locator('.ant-modal-close').click();

      await view(page).locator('[data-tab=database]').click();
      await view(page).locator('[data-testid=ds-add]').click();
      await modal.locator('.ant-modal-footer .ant-btn-primary').click();
      await expectBlocked('data source');
      await modal.locator('.ant-modal-close').click();
      await screenshot(page, `operator-blocked-datasource-${lang}`);

      await open(`/nodes/${nodes[0]._id}`);
      const name = view(page).locator('.node-form-name');
      await name.waitFor();
      await name.fill(' ');
      await view(page).locator('.node-form-save').click();
      await expectBlocked('node');

      await open(`/spiders/${spiderId}`);
      await view(page).locator('[data-testid=spider-run]').click();
      const dialog = page.locator('.run-dialog');
      await dialog.locator('.run-type .ant-radio-button-wrapper').nth(2).click();
      await dialog.locator('.run-submit').click();
      await expectBlocked('run');
      await screenshot(page, `operator-blocked-run-${lang}`);
      await dialog.locator('.ant-modal-close').click();
    });
  }
});

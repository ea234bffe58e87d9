/**
 * The queue in the console, in en and zh: the Run dialog sets a task's priority and maximum run time, the task list
 * shows the priority and filters by it, and the spider's Overview holds its own maximum run time.
 */
import { describe, expect } from 'vitest';
import { e2eTest, useE2E } from './harness.ts';
import { signIn } from './journey.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E();
const call = apiCaller(() => env.url);

const TEXT = {
  en: { highest: '1 · Highest', timeoutLabel: 'Maximum run time' },
  zh: { highest: '1 · 最高', timeoutLabel: '最长运行时间' },
};

describe('queue: priority and maximum run time', () => {
  for (const lang of ['en', 'zh'] as const) {
    const tx = TEXT[lang];
    e2eTest(
      `${lang}: the Run dialog sets priority and timeout; the task list shows and filters the priority`,
      async ({ page }) => {
        const token = await signIn(page, lang);
        const name = `e2e-queue-${lang}`;
        const spider = await call<{ _id: string }>(token, 'PUT', '/spiders', { name, cmd: 'echo queued' });

        await page.goto(`${env.url}/spiders`);
        const row = page.locator('.app-view:visible tr', { hasText: name });
        await row.waitFor();
        await row.locator('[data-testid=spider-run]').click();
        const dialog = page.locator('.run-dialog');
        await dialog.waitFor();
        await dialog.getByText(tx.timeoutLabel).waitFor();
        await dialog.locator('.run-priority').click();
        await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: tx.highest }).click();
        await dialog.locator('input[data-testid=run-timeout], [data-testid=run-timeout] input').first().fill('120');
        await dialog.locator('.run-submit').click();
        await page.locator('.run-started').waitFor();

        const tasks = await call<{ _id: string; priority: number; timeout_seconds: number | null; status: string }[]>(
          token,
          'GET',
          `/tasks?spider_id=${spider._id}`,
        );
        expect(tasks).toHaveLength(1);
        expect(tasks[0]).toMatchObject({ priority: 1, timeout_seconds: 120 });

        // The list filtered to the highest priority holds the task, with its priority shown in its row.
        await page.goto(`${env.url}/tasks?spider_id=${spider._id}`);
        await page.locator('[data-testid=task-filter-priority]').click();
        await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: tx.highest }).click();
        const taskRow = page.locator(`.app-view:visible tr:has([data-task-id="${tasks[0]._id}"])`);
        await taskRow.waitFor();
        await expect.poll(() => taskRow.innerText()).toContain(tx.highest);

        // The spider's Overview shows its own maximum run time among its limits.
        await call(token, 'POST', `/spiders/${spider._id}`, { limits: { timeout_seconds: 30 } });
        await page.goto(`${env.url}/spiders/${spider._id}`);
        const field = page.locator(
          'input[data-testid=limits-timeout_seconds], [data-testid=limits-timeout_seconds] input',
        );
        await expect.poll(() => field.first().inputValue()).toBe('30');
        await expect.poll(() => page.locator('.app-view:visible').innerText()).toContain(tx.timeoutLabel);
      },
    );
  }
});

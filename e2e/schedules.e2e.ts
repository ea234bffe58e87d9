/** Schedules journey: create a 2-second schedule in the console, see its tasks, disable it, see no more. */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, loginByApi, useE2E } from './harness.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E({ master: { embeddedNode: true } });

const call = apiCaller(() => env.url);

async function taskCount(token: string, scheduleId: string): Promise<number> {
  const res = await fetch(`${env.url}/api/schedules/${scheduleId}/tasks?page_size=1`, {
    headers: { authorization: token },
  });
  return ((await res.json()) as { total: number }).total;
}

async function chooseOption(page: Page, field: string, text: string) {
  await page.locator(`.schedule-form-modal #schedule_${field}`).click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: text }).first().click();
}

describe('schedules', () => {
  e2eTest(
    'en: add a schedule firing every 2 s, see its tasks, disable it, no more tasks',
    async ({ page }) => {
      const token = await loginByApi(page, 'en');
      await call(token, 'PUT', '/spiders', { name: 'e2e-sched-spider', cmd: 'echo scheduled' });

      await page.goto(`${env.url}/schedules`);
      await page.locator('.schedule-add').click();
      const modal = page.locator('.schedule-form-modal');
      await modal.waitFor();
      await modal.locator('#schedule_name').fill('every two seconds');
      await chooseOption(page, 'spider_id', 'e2e-sched-spider');

      // The shared cron rule refuses 5 fields in the form too.
      const cron = modal.locator('#schedule_cron');
      await cron.fill('*/2 * * * *');
      await modal.locator('.ant-form-item-explain-error', { hasText: 'Cron expression must be valid' }).waitFor();
      await cron.fill('*/2 * * * * *');
      await expect.poll(() => modal.locator('.ant-form-item-explain-error').count()).toBe(0);
      // Preview: a human description and the next 5 run times, 2 s apart.
      const preview = modal.locator('.cron-preview');
      await preview.waitFor();
      expect(await preview.locator('.ant-alert-message').innerText()).toMatch(/Every 2 seconds/i);
      expect(await preview.locator('li').count()).toBe(5);

      await modal.locator('.ant-modal-footer .ant-btn-primary').click();
      await modal.waitFor({ state: 'hidden' });

      const row = page.locator('.schedule-table tr', { hasText: 'every two seconds' });
      await row.waitFor();
      // The list keeps a seconds field other than 0: it is part of the meaning.
      expect((await row.locator('.schedule-cron').innerText()).trim()).toBe('*/2 * * * * *');
      await row.locator('.schedule-status-running').waitFor();

      const schedules = await call<{ _id: string; name: string; cron: string }[]>(token, 'GET', '/schedules');
      const s = schedules.find((x) => x.name === 'every two seconds')!;
      expect(s.cron).toBe('*/2 * * * * *');

      // Its tasks appear, carrying its schedule id.
      await row.locator('.schedule-tasks').click();
      const drawer = page.locator('.schedule-tasks-drawer');
      await drawer.waitFor();
      await expect
        .poll(() => drawer.locator(`.schedule-task-link[data-schedule-id="${s._id}"]`).count(), { timeout: 20_000 })
        .toBeGreaterThanOrEqual(2);
      await drawer.locator('.ant-drawer-close').click();

      // Disable with the switch: no more tasks.
      await row.locator('.schedule-enabled').click();
      await row.locator('.schedule-status-stop').waitFor();
      await page.waitForTimeout(500);
      const after = await taskCount(token, s._id);
      await page.waitForTimeout(5000);
      expect(await taskCount(token, s._id)).toBe(after);
      const got = await call<{ enabled: boolean; next_run_ts: string | null }>(token, 'GET', `/schedules/${s._id}`);
      expect(got).toMatchObject({ enabled: false, next_run_ts: null });
    },
    { timeout: 90_000 },
  );

  e2eTest('zh: the schedule list shows the Chinese texts and the cron description', async ({ page }) => {
    const token = await loginByApi(page, 'zh');
    const spider = await call<{ _id: string }>(token, 'PUT', '/spiders', { name: 'e2e-zh-spider', cmd: 'echo x' });
    await call(token, 'PUT', '/schedules', {
      name: 'zh-nightly',
      cron: '0 30 2 * * *',
      spider_id: spider._id,
      timezone: 'UTC',
    });
    await page.goto(`${env.url}/schedules`);
    const row = page.locator('.schedule-table tr', { hasText: 'zh-nightly' });
    await row.waitFor();
    expect((await row.locator('.schedule-cron').innerText()).trim()).toBe('30 2 * * *');
    expect(await row.locator('.schedule-cron-text').innerText()).toMatch(/02:30/);
    expect(await row.locator('.schedule-status').innerText()).toBe('运行中');
  });
});

/**
 * Notifications journey, in en and zh: an administrator adds a webhook channel in Settings → Notifications, sends
 * a test and reads the endpoint's answer, adds a rule for failed tasks, and sees the alert of a failing task
 * delivered in the alert history.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, loginByApi, screenshot, useE2E } from './harness.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E({ master: { embeddedNode: true } });
const call = apiCaller(() => env.url);
const view = (page: Page) => page.locator('.app-view:visible');
const WAIT = { timeout: 60_000 };
const TEXT = { en: { webhook: 'Webhook', delivered: 'Delivered' }, zh: { webhook: 'Webhook', delivered: '已送达' } };

let receiver: http.Server;
let hookUrl = '';
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
});

async function choose(page: Page, select: string, text: string) {
  await page.locator(select).click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: text }).first().click();
}

describe('notifications', () => {
  for (const lang of ['en', 'zh'] as const) {
    e2eTest(`${lang}: add a channel and a rule, see a failing task's alert delivered`, async ({ page }) => {
      const tx = TEXT[lang];
      const token = await loginByApi(page, lang);
      const spider = await call<{ _id: string }>(token, 'PUT', '/spiders', {
        name: `e2e-notify-${lang}`,
        cmd: 'python3 fail.py',
      });
      await call(token, 'POST', `/spiders/${spider._id}/file`, {
        path: 'fail.py',
        content: 'import sys\nsys.exit(3)\n',
      });

      await page.goto(`${env.url}/setting?tab=notifications`);
      await view(page).locator('.channel-add').click();
      const channel = page.locator('.channel-form');
      await channel.locator('input.channel-name').fill(`hook-${lang}`);
      await choose(page, '.channel-form .channel-kind', tx.webhook);
      await channel.locator('input.channel-url').fill(hookUrl);
      await channel.locator('.ant-modal-footer .ant-btn-primary').click();
      const row = view(page).locator('tr', { hasText: `hook-${lang}` });
      await row.locator('.channel-test').click();
      await page.locator('.channel-test-answer', { hasText: 'thanks' }).waitFor(WAIT);
      await page.locator('.ant-modal-confirm-btns .ant-btn').click();

      await view(page).locator('[data-subtab=rules]').click();
      await view(page).locator('.rule-add').click();
      const rule = page.locator('.rule-form');
      await rule.locator('input.rule-name').fill(`failed-${lang}`);
      await choose(page, '.rule-form .rule-channels', `hook-${lang}`);
      await rule.locator('.ant-modal-footer .ant-btn-primary').click();
      await view(page)
        .locator('tr', { hasText: `failed-${lang}` })
        .waitFor(WAIT);

      await call(token, 'PUT', '/tasks', { spider_id: spider._id, run_type: 'random' });
      await view(page).locator('[data-subtab=alerts]').click();
      const alert = view(page)
        .locator('tr', { hasText: `failed-${lang}` })
        .locator('.alert-status-delivered');
      await expect.poll(() => alert.count(), WAIT).toBeGreaterThan(0);
      expect(await alert.first().innerText()).toBe(tx.delivered);
      await screenshot(page, `notifications-history-${lang}`);
    });
  }
});

/**
 * Admin journeys: users, API tokens, password change, feedback, and zh/en screenshots of the users,
 * settings, feedback, disclaimer, sites and dashboard screens (test-output/screens/).
 */
import path from 'node:path';
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import Database from 'better-sqlite3';
import { newId } from '@crawldeck/shared';
import { ADMIN_PASSWORD, e2eTest, useE2E } from './harness.ts';
import { shot, signIn } from './journey.ts';

const screen = (page: Page, name: string) => shot(page, name, { top: true });

describe('admin console', () => {
  const env = useE2E();

  async function apiCall(method: string, route: string, token: string | null, body?: unknown) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${env.url}/api${route}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as { data: any; error?: string } };
  }
  async function adminToken() {
    const r = await apiCall('POST', '/login', null, { username: 'admin', password: ADMIN_PASSWORD });
    return r.body.data as string;
  }
  const okButton = (page: Page) => page.locator('.ant-modal-wrap:visible .ant-modal-footer .ant-btn-primary');
  const tab = (page: Page, key: string) => page.locator(`[data-tab="${key}"]`);

  e2eTest('admin creates a user; that normal user sees no Users entry and gets 403', async ({ page }) => {
    await signIn(page, 'en');
    await page.goto(`${env.url}/users`);
    await page.locator('[data-page="users"] .ant-table-row').first().waitFor();
    await page.locator('[data-testid="add-user"]').click();
    const dialog = page.locator('.user-form-dialog');
    await dialog.locator('input#username').fill('e2e_normal');
    await dialog.locator('input#password').fill('normal-pass');
    await dialog.locator('input#confirmPassword').fill('other-pass');
    await dialog.locator('input#email').fill('not-an-email');
    await okButton(page).click();
    await dialog.getByText('Two passwords do not match').waitFor();
    await dialog.getByText('E-mail format is invalid').waitFor();
    await screen(page, 'users-add-dialog-errors-en');
    await dialog.locator('input#confirmPassword').fill('normal-pass');
    await dialog.locator('input#email').fill('normal@example.com');
    await okButton(page).click();
    await page.locator('.ant-table-row', { hasText: 'e2e_normal' }).waitFor();
    expect(await page.locator('.ant-table-row', { hasText: 'e2e_normal' }).innerText()).toContain('Normal User');

    // The normal user: no Users entry in the menu; the API answers 403.
    const t = await signIn(page, 'en', { username: 'e2e_normal', password: 'normal-pass' });
    await page.goto(`${env.url}/home`);
    await page.locator('.sidebar-container .ant-menu-item', { hasText: 'Settings' }).waitFor();
    expect(await page.locator('.sidebar-container .ant-menu-item', { hasText: /^Users$/ }).count()).toBe(0);
    expect((await apiCall('GET', '/users', t)).status).toBe(403);
    expect((await apiCall('PUT', '/users-add', t, { username: 'x', password: '12345', role: 'admin' })).status).toBe(
      403,
    );
  });

  e2eTest('an API token created in Settings works raw and with Bearer, then revoked → 401', async ({ page }) => {
    await signIn(page, 'en');
    await page.goto(`${env.url}/setting`);
    await tab(page, 'tokens').click();
    await page.locator('[data-testid="add-token"]').click();
    await page.locator('[data-testid="token-name"]').fill('e2e-ci');
    await okButton(page).click();
    const raw = (await page.locator('[data-testid="new-token"]').innerText()).trim();
    expect(raw.length).toBeGreaterThan(30);
    await screen(page, 'setting-token-created-en');
    expect((await apiCall('GET', '/me', raw)).body.data.username).toBe('admin');
    expect((await apiCall('GET', '/users', `Bearer ${raw}`)).status).toBe(200);
    await page.locator('.ant-modal-wrap:visible .ant-modal-footer .ant-btn-primary').click();
    await page.locator('[data-testid="revoke-e2e-ci"]').click();
    await page.locator('.ant-popconfirm .ant-btn-primary').click();
    await page.getByText('Token revoked').waitFor();
    expect((await apiCall('GET', '/me', raw)).status).toBe(401);
    expect((await apiCall('GET', '/me', `Bearer ${raw}`)).status).toBe(401);
  });

  e2eTest(
    'changing the password needs the current one and logs out the other sessions (and, ticked, the API tokens)',
    async ({ page }) => {
      const admin = await adminToken();
      expect(
        (await apiCall('PUT', '/users-add', admin, { username: 'pw_user', password: 'first-pass', role: 'normal' }))
          .status,
      ).toBe(200);
      const other = (await apiCall('POST', '/login', null, { username: 'pw_user', password: 'first-pass' })).body
        .data as string;
      const apiToken = (await apiCall('PUT', '/tokens', other, { name: 'script' })).body.data.token as string;
      const mine = await signIn(page, 'en', { username: 'pw_user', password: 'first-pass' });
      await page.goto(`${env.url}/setting`);
      await tab(page, 'password').click();
      await page.locator('[data-testid="new-password"]').fill('1234');
      await page.locator('[data-testid="confirm-password"]').fill('12345');
      await page.locator('[data-testid="change-password"]').click();
      await page.getByText('Password must be at least 5 characters').waitFor();
      await page.getByText('Two passwords do not match').waitFor();
      await page.getByText('Please enter your current password').waitFor();
      await screen(page, 'setting-password-errors-en');
      await page.locator('[data-testid="current-password"]').fill('first-pass');
      await page.locator('[data-testid="new-password"]').fill('second-pass');
      await page.locator('[data-testid="confirm-password"]').fill('second-pass');
      await page.locator('[data-testid="revoke-tokens"]').check();
      await page.locator('[data-testid="change-password"]').click();
      await page.getByText('Password changed').waitFor();
      expect((await apiCall('GET', '/me', other)).status).toBe(401);
      expect((await apiCall('GET', '/me', apiToken)).status).toBe(401);
      expect((await apiCall('GET', '/me', mine)).status).toBe(200);
      expect((await apiCall('POST', '/login', null, { username: 'pw_user', password: 'second-pass' })).status).toBe(
        200,
      );
    },
  );

  e2eTest('feedback is validated, submitted and listed for the admin', async ({ page }) => {
    await signIn(page, 'en');
    await page.goto(`${env.url}/feedback`);
    await page.locator('[data-testid="feedback-email"]').fill('bad');
    await page.locator('[data-testid="feedback-submit"]').click();
    await page.getByText('E-mail format is invalid').waitFor();
    await page.locator('.ant-form-item-explain-error', { hasText: 'Required' }).nth(1).waitFor();
    expect(await page.locator('.ant-form-item-explain-error', { hasText: 'Required' }).count()).toBe(2);
    await page.locator('[data-testid="feedback-email"]').fill('ops@example.com');
    await page.locator('[data-testid="feedback-chat"]').fill('ops_wechat');
    await page.locator('[data-testid="feedback-content"]').fill('The dashboard is clear. Please add per-node charts.');
    await page.locator('[data-testid="feedback-submit"]').click();
    await page.getByText('Thank you!').waitFor();
    await page.locator('[data-testid="feedback-list"] .ant-table-row', { hasText: 'ops_wechat' }).waitFor();
    const stored = await apiCall('GET', '/feedback', await adminToken());
    expect(stored.body.data[0]).toMatchObject({ email: 'ops@example.com', chat_account: 'ops_wechat' });
  });

  e2eTest('the default page size chosen in Settings → General is what the lists ask for', async ({ page }) => {
    await signIn(page, 'en');
    await page.goto(`${env.url}/setting`);
    await page.locator('[data-testid="setting-page-size"]').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: /^20$/ }).click();
    expect(await page.evaluate(() => localStorage.getItem('pageSize'))).toBe('20');
    const asked = page.waitForRequest((r) => /\/api\/tasks\?/.test(r.url()) && r.method() === 'GET');
    await page.goto(`${env.url}/tasks`);
    expect(new URL((await asked).url()).searchParams.get('page_size')).toBe('20');
    const usersAsked = page.waitForRequest((r) => /\/api\/users\?/.test(r.url()) && r.method() === 'GET');
    await page.goto(`${env.url}/users`);
    expect(new URL((await usersAsked).url()).searchParams.get('page_size')).toBe('20');
  });

  e2eTest(
    'the outbound allow-list is edited in Settings → General; a bad range is refused with its reason',
    async ({ page }) => {
      await signIn(page, 'en');
      await page.goto(`${env.url}/setting`);
      const box = page.locator('[data-testid="outbound-allow"]');
      await box.fill('10.20.0.0/16, not-a-range');
      await page.locator('[data-testid="outbound-allow-save"]').click();
      await page.locator('.ant-message-notice', { hasText: 'not-a-range' }).waitFor();
      expect((await apiCall('GET', '/system/setting', await adminToken())).body.data.outbound_allow).toBe('');
      await box.fill('10.20.0.0/16');
      await page.locator('[data-testid="outbound-allow-save"]').click();
      await page.locator('.ant-message-notice', { hasText: 'Saved' }).waitFor();
      // The refusal (the request helper's toast) and the confirmation (the screen's) share one stack.
      expect(await page.locator('.ant-message').count()).toBe(1);
      expect((await apiCall('GET', '/system/setting', await adminToken())).body.data.outbound_allow).toBe(
        '10.20.0.0/16',
      );
      await apiCall('POST', '/setting', await adminToken(), { outbound_allow: '' });
    },
  );

  e2eTest('dashboard numbers equal the store counts', async ({ page }) => {
    // Seed the tables of the tasks feature straight into the store (every required column filled generically).
    const db = new Database(path.join(env.dataDir, 'crawldeck.db'));
    try {
      db.pragma('busy_timeout = 5000');
      const insert = (table: string, given: Record<string, unknown>) => {
        const row: Record<string, unknown> = { ...given };
        for (const c of db.prepare(`SELECT name, "notnull", dflt_value, type FROM pragma_table_info(?)`).all(table) as {
          name: string;
          notnull: number;
          dflt_value: unknown;
          type: string;
        }[]) {
          if (c.name in row || !c.notnull || c.dflt_value != null) continue;
          row[c.name] = c.name === 'id' ? newId() : /int|real/i.test(c.type) ? Date.now() : `x-${newId().slice(-6)}`;
        }
        const keys = Object.keys(row);
        db.prepare(
          `INSERT INTO ${table} (${keys.map((k) => `"${k}"`).join(',')}) VALUES (${keys.map(() => '?').join(',')})`,
        ).run(...keys.map((k) => row[k]));
      };
      const owner = (db.prepare("SELECT id FROM users WHERE username = 'admin'").get() as { id: string }).id;
      const spider = newId();
      insert('spiders', { id: spider, owner_id: owner });
      const now = Date.now();
      for (const [i, status] of ['finished', 'finished', 'error', 'running', 'pending'].entries()) {
        insert('tasks', {
          id: newId(),
          spider_id: spider,
          node_id: '000000000000000000000000',
          status,
          create_ts: now - i * 86400_000,
        });
      }
      for (const status of ['online', 'offline']) insert('nodes', { id: newId(), status, type: 'worker' });
      insert('deploys', { id: newId(), spider_id: spider, node_id: 'n', create_ts: now, finish_ts: now });
      const count = (q: string) => (db.prepare(q).get() as { n: number }).n;
      const expected = {
        tasks: count('SELECT COUNT(*) AS n FROM tasks'),
        nodes: count("SELECT COUNT(*) AS n FROM nodes WHERE status = 'online'"),
        deploys: count('SELECT COUNT(*) AS n FROM deploys'),
        spiders: count('SELECT COUNT(*) AS n FROM spiders'),
      };
      await signIn(page, 'en');
      await page.goto(`${env.url}/home`);
      for (const [metric, n] of Object.entries(expected)) {
        const value = page.locator(`[data-metric="${metric}"] .ant-statistic-content-value`);
        await expect.poll(async () => Number((await value.innerText()).replace(/[^0-9]/g, ''))).toBe(n);
      }
      expect(expected.tasks).toBeGreaterThanOrEqual(5);
      await page.locator('[data-page="home"] canvas').nth(1).waitFor();
    } finally {
      db.close();
    }
  });

  e2eTest('screenshots of every screen in zh and en', async ({ page }) => {
    const admin = await adminToken();
    // Some data to look at.
    const csv = [
      'domain,main_category,category,rank,name,description',
      'example.com,Reference,Docs,1,Example,Reserved example domain',
      'news.example.org,News,World,2,Example News,"World news, daily"',
      'shop.example.net,Shopping,,3,Example Shop,',
    ].join('\n');
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'sites.csv');
    expect(
      (await fetch(`${env.url}/api/sites/import`, { method: 'POST', headers: { authorization: admin }, body: form }))
        .status,
    ).toBe(200);
    await apiCall('POST', '/insertUrl', admin, { url: 'https://example.com/a', regionCode: 'US', title: 'Example A' });
    for (const type of ['visit', 'page_view', 'page_view']) await apiCall('PUT', '/actions', admin, { type });

    for (const lang of ['zh', 'en'] as const) {
      await signIn(page, lang);
      await page.goto(`${env.url}/home`);
      await page.locator('[data-metric="tasks"]').waitFor();
      await page.locator('[data-page="home"] canvas').first().waitFor();
      await screen(page, `home-${lang}`);
      await page.goto(`${env.url}/users`);
      await page.locator('[data-page="users"] .ant-table-row').first().waitFor();
      await screen(page, `users-${lang}`);
      await page.goto(`${env.url}/setting`);
      for (const key of ['general', 'notifications', 'globalVariable', 'database', 'password', 'tokens']) {
        await tab(page, key).click();
        if (key === 'general') await page.locator('[data-testid="usage-summary"] .ant-table-row').first().waitFor();
        if (key === 'database') await page.locator('[data-testid="db-engine"]').waitFor();
        await screen(page, `setting-${key}-${lang}`);
      }
      await page.goto(`${env.url}/feedback`);
      await page.locator('[data-page="feedback"] form').waitFor();
      await screen(page, `feedback-${lang}`);
      await page.goto(`${env.url}/disclaimer`);
      await page.locator('[data-page="disclaimer"] section').first().waitFor();
      expect(await page.locator('[data-page="disclaimer"]').innerText()).toContain(
        lang === 'en' ? 'robots.txt' : 'robots.txt',
      );
      await screen(page, `disclaimer-${lang}`);
      await page.goto(`${env.url}/sites`);
      await page.locator('[data-panel="sites"] .ant-table-row').first().waitFor();
      await screen(page, `sites-${lang}`);
      await page.locator('.ant-tabs-tab', { hasText: lang === 'en' ? 'Collected URLs' : '已收集的 URL' }).click();
      await page.locator('[data-panel="collected-urls"] .ant-table-row').first().waitFor();
      await screen(page, `sites-urls-${lang}`);
    }
  });
});

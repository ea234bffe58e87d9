/**
 * Node environments in the console: an administrator installs a pip package on the master's node from the
 * Installation tab (served by a package index on loopback), sees Installing → Installed with its version, sees a
 * failing install as 'Installing dependency failed' with pip's words, in English and Chinese; the dependencies view
 * lists the package per node; a normal user sees the states but no install controls.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { ADMIN_PASSWORD, e2eTest, useE2E } from './harness.ts';
import { signIn } from './journey.ts';
import { startPackageIndexes, type PackageIndexes } from '../packages/server/test/support/package-index.ts';

const view = (page: Page) => page.locator('.app-view:visible');

describe('node environments', () => {
  const env = useE2E({ master: { embeddedNode: true } });
  let indexes: PackageIndexes;
  let nodeId = '';
  let nodeName = '';

  async function call(method: string, route: string, token: string, body?: unknown) {
    const res = await fetch(`${env.url}/api${route}`, {
      method,
      headers: { authorization: token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as { data: any };
  }
  const adminToken = async () =>
    (await call('POST', '/login', '', { username: 'admin', password: ADMIN_PASSWORD })).data as string;

  beforeAll(async () => {
    indexes = await startPackageIndexes({
      pip: { name: 'cdtiny', module: 'cdtiny', versions: ['1.0'] },
      npm: { name: 'cdtiny-js', versions: ['1.0.0'] },
    });
    const token = await adminToken();
    await call('POST', '/env-settings', token, {
      pip_index_url: indexes.pipIndex,
      pip_extra_index_url: '',
      npm_registry: indexes.npmRegistry,
    });
    for (let i = 0; i < 600 && !nodeId; i++) {
      const nodes = (await call('GET', '/nodes', token)).data as { _id: string; name: string; status: string }[];
      if (nodes[0]?.status === 'online') [nodeId, nodeName] = [nodes[0]._id, nodes[0].name];
      else await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);

  afterAll(async () => {
    await indexes?.close();
    const dataDir = path.join(env.dataDir, 'node');
    rmSync(
      path.join(os.tmpdir(), `crawldeck-work-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`),
      { recursive: true, force: true },
    );
  });

  async function openInstallation(page: Page, lang: 'zh' | 'en', credentials?: { username: string; password: string }) {
    await signIn(page, lang, credentials);
    await page.goto(`${env.url}/nodes/${nodeId}`);
    await view(page).locator('[data-testid=tab-installation]').click();
    const panel = view(page).locator('[data-testid=node-installation]');
    await panel.locator('[data-testid=env-language-python]').waitFor({ timeout: 30_000 });
    return panel;
  }

  /**
   * Uninstall asks first, naming the package and the node (cancelled here, the package stays); the node's own
   * Python cannot be uninstalled at all.
   */
  async function expectUninstallGuarded(page: Page, panel: Locator, words: { what: string; where: string }) {
    expect(await panel.locator('[data-testid=env-uninstall-python]').isDisabled()).toBe(true);
    await panel.locator('[data-testid=env-uninstall-pip-cdtiny]').click();
    const confirm = page.locator('[data-testid=env-uninstall-confirm]');
    await confirm.waitFor();
    expect(await confirm.innerText()).toContain(words.what);
    expect(await confirm.innerText()).toContain(words.where);
    await page.locator('.ant-popconfirm-buttons button').first().click(); // cancel
    await confirm.waitFor({ state: 'hidden' });
  }

  e2eTest(
    'en: an admin installs a pip package and sees a failing install with the tool message',
    async ({ page }) => {
      const panel = await openInstallation(page, 'en');
      expect(
        await panel.locator('[data-testid=env-languages] tr', { hasText: 'python3' }).locator('.env-state').innerText(),
      ).toBe('Installed');
      await panel.locator('[data-testid=env-pip-name]').fill('cdtiny');
      await panel.locator('[data-testid=env-pip-version]').fill('1.0');
      await panel.locator('[data-testid=env-pip-install]').click();
      const row = panel.locator('[data-testid=env-pip] tr', { has: page.locator('[data-testid=env-pip-row-cdtiny]') });
      await row.locator('.env-state-installing').waitFor({ timeout: 20_000 });
      await row.locator('.env-state-installed').waitFor({ timeout: 240_000 });
      expect(await row.innerText()).toContain('1.0');
      await expectUninstallGuarded(page, panel, {
        what: 'Removes the pip package "cdtiny".',
        where: `On node "${nodeName}".`,
      });

      await panel.locator('[data-testid=env-pip-name]').fill('no-such-package-xyz');
      await panel.locator('[data-testid=env-pip-install]').click();
      const failed = panel.locator('[data-testid=env-jobs] [data-testid=env-job-status-failed]');
      await failed.waitFor({ timeout: 240_000 });
      expect(await failed.innerText()).toContain('Installing dependency failed');
      await panel
        .locator('[data-testid=env-jobs] .ant-table-row', { has: page.locator('[data-testid=env-job-status-failed]') })
        .locator('.ant-table-row-expand-icon')
        .click();
      expect(await panel.locator('.env-job-error').innerText()).toMatch(/No matching distribution found/);

      await page.goto(`${env.url}/nodes`);
      await view(page).locator('[data-testid=nodes-view] .ant-segmented-item').nth(2).click();
      const deps = view(page).locator('[data-testid=env-dependencies]');
      expect(await deps.locator('.ant-table-row', { hasText: 'cdtiny' }).innerText()).toContain('1.0');
    },
    { timeout: 600_000 },
  );

  e2eTest('zh: states and the failure message in Chinese; a normal user cannot install', async ({ page }) => {
    const panel = await openInstallation(page, 'zh');
    const row = panel.locator('[data-testid=env-pip] tr', { has: page.locator('[data-testid=env-pip-row-cdtiny]') });
    expect(await row.locator('.env-state').innerText()).toBe('已安装');
    expect(await panel.locator('[data-testid=env-jobs] [data-testid=env-job-status-failed]').innerText()).toContain(
      '安装依赖失败',
    );
    await expectUninstallGuarded(page, panel, { what: '将卸载 pip 包“cdtiny”。', where: `节点：“${nodeName}”。` });

    const token = await adminToken();
    await call('PUT', '/users-add', token, { username: 'env_viewer', password: 'password-1', role: 'normal' });
    await page.context().clearCookies();
    const viewer = await openInstallation(page, 'en', { username: 'env_viewer', password: 'password-1' });
    expect(await viewer.locator('[data-testid=env-pip-row-cdtiny]').count()).toBe(1);
    expect(await viewer.locator('[data-testid=env-pip-form]').count()).toBe(0);
    expect(await viewer.locator('[data-testid=env-install-python], [data-testid=env-install-lua]').count()).toBe(0);
  });
});

/**
 * A master without a release source: the console asks for the latest release on every load and sign-in, and the
 * answer says "not configured" without an error status, so the browser's console shows no failed request. The
 * upgrade hint stays hidden and the release dialog shows its empty note.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, login, useE2E } from './harness.ts';

const env = useE2E();

/** Answers of /api/releases/latest the page received, with their statuses. */
function watchReleaseAnswers(page: Page): number[] {
  const statuses: number[] = [];
  page.on('response', (res) => {
    if (new URL(res.url()).pathname === '/api/releases/latest') statuses.push(res.status());
  });
  return statuses;
}

describe('release source not configured', () => {
  e2eTest('loading and signing in ask for the release without an error answer', async ({ page }) => {
    const statuses = watchReleaseAnswers(page);
    const failed: string[] = [];
    page.on('requestfailed', (req) => failed.push(req.url()));
    await login(page, 'en');
    await page.reload();
    await page.locator('.app-wrapper').waitFor();
    await expect.poll(() => statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(failed.filter((u) => u.includes('/api/releases/latest'))).toEqual([]);
    await expect.poll(() => page.locator('[data-testid="upgrade-hint"]').count()).toBe(0);
    await page.goto(`${env.url}/home?release=1`);
    await expect.poll(() => page.locator('[data-testid="release-title"]').innerText()).toBe('Release');
  });
});

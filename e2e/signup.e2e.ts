/**
 * Sign-up is closed on a fresh master: the sign-in screen offers no sign-up, the sign-up form says it is closed, and
 * a visitor gets an account only once an administrator opens sign-up in Settings → General. In zh and en. A first
 * visit opens in Chinese, with the language switch in the sign-in card named in both languages.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eTest, login, resetStorage, useE2E } from './harness.ts';

const env = useE2E();

const WORDS = {
  zh: { goSignUp: '立即注册', closed: '本平台未开放注册', saved: '已保存' },
  en: { goSignUp: 'Sign up', closed: 'Sign-up is closed on this master', saved: 'Saved' },
} as const;
type Lang = keyof typeof WORDS;

const signUpLink = (page: Page) => page.locator('.login-switch a[href="/signup"]');
const signUpSwitch = (page: Page) => page.locator('[data-testid="allow-signup"]');

/** A visitor without an account on the sign-in screen, in this language (the public setting read afresh). */
async function visit(page: Page, lang: Lang, path: '/login' | '/signup') {
  await resetStorage(page, env.url);
  await page.evaluate((l) => localStorage.setItem('lang', l), lang);
  await page.goto(`${env.url}${path}`);
  await page.locator('input#username').waitFor();
  // The master's public setting has arrived (the sign-in screen knows whether sign-up is open).
  await page.locator('.login-switch:not([data-signup="unknown"])').waitFor({ state: 'attached' });
}

/** As the administrator: Settings → General → Open sign-up, switched to `open`. */
async function setSignUp(page: Page, lang: Lang, open: boolean) {
  await resetStorage(page, env.url);
  await login(page, lang);
  await page.goto(`${env.url}/setting`);
  await signUpSwitch(page).waitFor();
  if ((await signUpSwitch(page).getAttribute('aria-checked')) !== String(open)) {
    await signUpSwitch(page).click();
    await page.locator('.ant-message-notice', { hasText: WORDS[lang].saved }).waitFor();
  }
  // What the master keeps is what a fresh load of the screen shows.
  await page.reload();
  await expect.poll(() => signUpSwitch(page).getAttribute('aria-checked')).toBe(String(open));
}

async function signUp(page: Page, username: string) {
  await page.locator('input#username').fill(username);
  await page.locator('input#password').fill('visitor-pass');
  await page.locator('input#confirmPassword').fill('visitor-pass');
  await page.locator('button[type=submit]').click();
  await page.waitForURL(/\/home$/);
  await page.locator('.user-entry', { hasText: username }).waitFor();
}

describe('sign-up closed by default', () => {
  e2eTest('zh: a fresh master offers no sign-up; the admin opens it and a visitor signs up', async ({ page }) => {
    await visit(page, 'zh', '/login');
    expect(await signUpLink(page).count()).toBe(0);
    await visit(page, 'zh', '/signup');
    await page.locator('[data-testid="signup-closed"]', { hasText: WORDS.zh.closed }).waitFor();
    expect(await page.locator('button[type=submit]').isDisabled()).toBe(true);

    await setSignUp(page, 'zh', true);

    await visit(page, 'zh', '/login');
    await signUpLink(page).filter({ hasText: WORDS.zh.goSignUp }).click();
    await page.waitForURL(/\/signup$/);
    expect(await page.locator('[data-testid="signup-closed"]').count()).toBe(0);
    await signUp(page, 'visitor_zh');
  });

  e2eTest('en: closed again the link goes away; opened, a visitor signs up', async ({ page }) => {
    await setSignUp(page, 'en', false);
    await visit(page, 'en', '/login');
    expect(await signUpLink(page).count()).toBe(0);
    await visit(page, 'en', '/signup');
    await page.locator('[data-testid="signup-closed"]', { hasText: WORDS.en.closed }).waitFor();
    expect(await page.locator('button[type=submit]').isDisabled()).toBe(true);

    await setSignUp(page, 'en', true);

    await visit(page, 'en', '/login');
    await signUpLink(page).filter({ hasText: WORDS.en.goSignUp }).click();
    await page.waitForURL(/\/signup$/);
    await signUp(page, 'visitor_en');
  });

  e2eTest('a first visit opens in Chinese and the sign-in card switches to English', async ({ page }) => {
    await resetStorage(page, env.url);
    await page.goto(`${env.url}/login`);
    const switcher = page.locator('.login-card [data-testid="login-language"]');
    await switcher.filter({ hasText: 'Language' }).waitFor();
    await page.locator('button[type=submit]', { hasText: '登' }).waitFor();
    await switcher.getByText('English', { exact: true }).click();
    await page.locator('button[type=submit]', { hasText: 'Sign in' }).waitFor();
    await switcher.filter({ hasText: 'Language · 语言' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe('en');
  });
});

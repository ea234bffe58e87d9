/** The console shell's parts as a journey finds them: toasts, form errors, breadcrumb, tabs, menu items, titles. */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

export const toast = (page: Page) => page.locator('.ant-message-notice');
export const formErrors = (page: Page) => page.locator('.ant-form-item-explain-error');
export const crumbs = (page: Page) => page.locator('.app-breadcrumb .ant-breadcrumb-link');
export const tabs = (page: Page) => page.locator('.tags-view-item');
export const tab = (page: Page, path: string) => page.locator(`.tags-view-item[data-path="${path}"]`);
export const exact = (text: string) => new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
export const menuItem = (page: Page, text: string) =>
  page.locator('.sidebar-container .ant-menu-item', { hasText: exact(text) });

export async function expectTitle(page: Page, title: string) {
  await expect.poll(() => page.title(), { timeout: 15_000 }).toBe(title);
}

export async function box(page: Page, selector: string) {
  const b = await page.locator(selector).first().boundingBox();
  if (!b) throw new Error(`${selector} not visible`);
  return b;
}

export async function texts(locator: ReturnType<Page['locator']>): Promise<string[]> {
  return (await locator.allInnerTexts()).map((t) => t.trim());
}

export async function cookie(page: Page, name: string): Promise<string | undefined> {
  return (await page.context().cookies()).find((c) => c.name === name)?.value;
}

export async function expectText(locator: ReturnType<Page['locator']>, text: string) {
  await locator.filter({ hasText: text }).first().waitFor();
}

/**
 * Shared e2e harness: an in-process master on a temp data dir (SQLite) serving the built console, a headless
 * Chromium (playwright-core + /usr/bin/chromium), login helpers and a failure screenshot wrapper.
 *
 *   const h = useE2E();                          // in a describe(): starts master + browser once per file
 *   e2eTest('my journey', async ({ page }) => { ... });   // fresh page; full-page screenshot on failure
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, onTestFailed, test } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startMaster } from '@crawldeck/server';

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'admin-pass';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Built console served by the master; E2E_CONSOLE_DIR overrides it (e.g. a build of a clean snapshot). */
export const CONSOLE_DIR = process.env.E2E_CONSOLE_DIR ?? path.join(root, 'packages/console/dist');
export const OUTPUT_DIR = path.join(root, 'test-output/e2e');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
];

export interface E2EEnv {
  /** Master base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  context: BrowserContext;
  dataDir: string;
  /** Opens a fresh page (closed automatically at the end of the file). */
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
}

export interface StartOptions {
  /** Extra startMaster overrides. */
  master?: Record<string, unknown>;
  viewport?: { width: number; height: number };
}

export async function startE2E(options: StartOptions = {}): Promise<E2EEnv & { close(): Promise<void> }> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-e2e-'));
  const dataDir = path.join(tmp, 'data');
  const profileDir = path.join(tmp, 'profile');
  mkdirSync(dataDir, { recursive: true });
  const master = await startMaster({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    adminPassword: ADMIN_PASSWORD,
    consoleDir: CONSOLE_DIR,
    embeddedNode: false,
    // Journeys click through screens; the guided tours' masks would cover them. The tours suite turns it on.
    enableTutorial: false,
    logLevel: 'warn',
    // test sites and Git remotes are served on loopback
    outboundAllow: '127.0.0.0/8,::1/128',
    ...(options.master ?? {}),
  } as Parameters<typeof startMaster>[0]);
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: options.viewport ?? { width: 1366, height: 800 },
      locale: 'en-US',
    });
  } catch (err) {
    await master.close();
    throw err;
  }
  const pages: Page[] = [];
  return {
    url: master.url,
    context,
    dataDir,
    async newPage(opts = {}) {
      const page = await context.newPage();
      await watchCspViolations(page);
      watchPageErrors(page);
      if (opts.width || opts.height)
        await page.setViewportSize({ width: opts.width ?? 1366, height: opts.height ?? 800 });
      pages.push(page);
      return page;
    },
    async close() {
      await context.close().catch(() => undefined);
      await master.close().catch(() => undefined);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

let current: (E2EEnv & { close(): Promise<void> }) | null = null;

/** Starts master + browser before the file's tests and stops them after. Returns a live handle. */
export function useE2E(options: StartOptions = {}): E2EEnv {
  beforeAll(async () => {
    current = await startE2E(options);
  });
  afterAll(async () => {
    await current?.close();
    current = null;
  });
  return new Proxy({} as E2EEnv, {
    get(_, key: keyof E2EEnv) {
      if (!current) throw new Error('e2e environment not started (use inside a test)');
      const v = current[key];
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(current) : v;
    },
  });
}

const cspViolations = new WeakMap<Page, string[]>();

/**
 * Records every Content-Security-Policy violation the page reports (the `securitypolicyviolation` event and
 * Chromium's console errors), so a journey fails when the console needs something the master's policy forbids.
 */
export async function watchCspViolations(page: Page): Promise<string[]> {
  const seen: string[] = [];
  cspViolations.set(page, seen);
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|securitypolicyviolation/i.test(msg.text()))
      seen.push(msg.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(
        `securitypolicyviolation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`,
      );
    });
  });
  return seen;
}

const pageErrors = new WeakMap<Page, string[]>();

/** Records every uncaught exception of the page (Playwright's `pageerror`), so a journey fails on any of them. */
export function watchPageErrors(page: Page): string[] {
  const seen: string[] = [];
  pageErrors.set(page, seen);
  page.on('pageerror', (err) => seen.push(err.stack || err.message));
  return seen;
}

/** Throws when the page raised an uncaught exception since it was opened. */
export function expectNoPageErrors(page: Page): void {
  const seen = pageErrors.get(page) ?? [];
  if (seen.length) throw new Error(`Uncaught errors on ${page.url()}:\n${seen.join('\n\n')}`);
}

/** Throws when the page reported a CSP violation since it was opened. */
export function expectNoCspViolations(page: Page): void {
  const seen = cspViolations.get(page) ?? [];
  if (seen.length)
    throw new Error(`Content-Security-Policy violations on ${page.url()}:\n${[...new Set(seen)].join('\n')}`);
}

/** The violations reported so far, forgotten afterwards (for a test that provokes one on purpose). */
export function takeCspViolations(page: Page): string[] {
  const seen = cspViolations.get(page) ?? [];
  return seen.splice(0);
}

/** API calls of the page that were refused, failed or never answered: printed when a journey fails. */
function watchFailedCalls(page: Page): string[] {
  const seen: string[] = [];
  const api = (url: string) => (url.includes('/api/') ? new URL(url).pathname : undefined);
  page.on('response', (r) => {
    const route = api(r.url());
    if (route && r.status() >= 400) seen.push(`${r.request().method()} ${route} -> ${r.status()}`);
  });
  page.on('requestfailed', (r) => {
    const route = api(r.url());
    if (route) seen.push(`${r.method()} ${route} -> ${r.failure()?.errorText ?? 'failed'}`);
  });
  return seen;
}

function fileSafe(name: string): string {
  return (
    name
      .replace(/[^a-zA-Z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 120) || 'test'
  );
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const file = path.join(OUTPUT_DIR, `${fileSafe(name)}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface E2EFixture {
  page: Page;
  env: E2EEnv;
}

/**
 * A test with a fresh page (width/height optional); on failure a full-page screenshot is saved to
 * test-output/e2e/<test-name>.png. The test fails on any CSP violation or uncaught page error. The page is closed
 * afterwards.
 */
export function e2eTest(
  name: string,
  fn: (fx: E2EFixture) => Promise<void>,
  options: { width?: number; height?: number; timeout?: number; keepStorage?: boolean } = {},
): void {
  test(
    name,
    async () => {
      if (!current) throw new Error('call useE2E() in this file first');
      const env = current;
      const page = await env.newPage(options);
      page.setDefaultTimeout(15_000);
      if (!options.keepStorage) await resetStorage(page, env.url);
      const failedCalls = watchFailedCalls(page);
      let shot: Promise<unknown> | null = null;
      onTestFailed(() => {
        if (failedCalls.length)
          console.error(`API calls refused or failed during "${name}":\n${failedCalls.join('\n')}`);
        shot ??= screenshot(page, name).catch(() => undefined);
      });
      try {
        await fn({ page, env });
        expectNoCspViolations(page);
        expectNoPageErrors(page);
      } catch (err) {
        shot ??= screenshot(page, name).catch(() => undefined);
        await shot;
        throw err;
      } finally {
        await shot;
        await page.close().catch(() => undefined);
      }
    },
    options.timeout,
  );
}

/** Clears cookies and the origin's localStorage (the profile is shared by the tests of a file). */
export async function resetStorage(page: Page, baseUrl: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${baseUrl}/api/version`);
  await page.evaluate(() => {
    localStorage.clear();
    sessionStorage.clear();
  });
}

/** Sets the console language (localStorage `lang`) before the app boots on the next load. */
export async function setLanguage(page: Page, baseUrl: string, lang: 'zh' | 'en'): Promise<void> {
  if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/login`);
  await page.evaluate((l) => localStorage.setItem('lang', l), lang);
}

/**
 * Signs in through the login form (as a person would) and waits for the home page.
 * `lang` sets the language first; defaults keep whatever is stored (zh when unset).
 */
export async function login(
  page: Page,
  lang?: 'zh' | 'en',
  credentials: { username?: string; password?: string; baseUrl?: string } = {},
): Promise<void> {
  const base = credentials.baseUrl ?? current?.url;
  if (!base) throw new Error('login(): no base URL');
  await page.goto(`${base}/login`);
  if (lang) {
    await page.evaluate((l) => localStorage.setItem('lang', l), lang);
    await page.reload();
  }
  await page.locator('input#username').fill(credentials.username ?? ADMIN_USERNAME);
  await page.locator('input#password').fill(credentials.password ?? ADMIN_PASSWORD);
  await page.locator('button[type=submit]').click();
  await page.waitForURL(/\/home$/);
  await page.locator('.app-wrapper').waitFor();
}

/** Signs in through the API and stores the token (fast path for tests that do not test the form). */
export async function loginByApi(
  page: Page,
  lang?: 'zh' | 'en',
  credentials: { username?: string; password?: string; baseUrl?: string } = {},
): Promise<string> {
  const base = credentials.baseUrl ?? current?.url;
  if (!base) throw new Error('loginByApi(): no environment');
  const res = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: credentials.username ?? ADMIN_USERNAME,
      password: credentials.password ?? ADMIN_PASSWORD,
    }),
  });
  const body = (await res.json()) as { data: string };
  if (!res.ok) throw new Error(`login failed: ${res.status} ${JSON.stringify(body)}`);
  if (!page.url().startsWith(base)) await page.goto(`${base}/login`);
  await page.evaluate(
    ([token, l]) => {
      localStorage.setItem('token', token);
      if (l) localStorage.setItem('lang', l);
    },
    [body.data, lang ?? ''] as const,
  );
  return body.data;
}

/**
 * What many journeys do beside the harness: screenshots of the screens they pass (test-output/screens, kept for a
 * reader to look at, unlike the harness's failure shots), signing in with the guided tours off, and zips of spider
 * files to upload.
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import yazl from 'yazl';
import { loginByApi } from './harness.ts';

const SCREENS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test-output/screens');

export interface ShotOptions {
  /** The whole page rather than the window (default true). */
  fullPage?: boolean;
  /** Scroll to the top first (default false). */
  top?: boolean;
  /** Time for fade-ins, toasts and chart animations to end (default 400 ms). */
  settleMs?: number;
}

/** A screenshot of the screen as it stands, named for the journey step. */
export async function shot(page: Page, name: string, options: ShotOptions = {}): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  if (options.top) await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(options.settleMs ?? 400);
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: options.fullPage ?? true });
}

/** Signs in through the API with the guided tours off (they would cover the screens). */
export async function signIn(
  page: Page,
  lang: 'zh' | 'en',
  credentials?: { username?: string; password?: string },
): Promise<string> {
  const token = await loginByApi(page, lang, credentials);
  await page.evaluate(() => localStorage.setItem('enableTutorial', '0'));
  return token;
}

function zipOf(add: (zip: yazl.ZipFile) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    add(zip);
    zip.end();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** A zip of the given files (path inside the zip → content). */
export function zipFiles(files: Record<string, string | Buffer>): Promise<Buffer> {
  return zipOf((zip) => {
    for (const [name, content] of Object.entries(files))
      zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  });
}

/** A zip of a folder's files, without Python's byte-code caches. */
export function zipFolder(dir: string): Promise<Buffer> {
  return zipOf((zip) => {
    const walk = (d: string, rel: string) => {
      for (const n of readdirSync(d)) {
        if (n === '__pycache__') continue;
        const full = path.join(d, n);
        const r = rel ? `${rel}/${n}` : n;
        if (statSync(full).isDirectory()) walk(full, r);
        else zip.addBuffer(readFileSync(full), r);
      }
    };
    walk(dir, '');
  });
}

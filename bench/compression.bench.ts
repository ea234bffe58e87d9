// What a browser really moves to open the console's /home screen, measured in Chromium against a started master:
// bytes on the wire (encodedDataLength) for every request of the page load, once with compression and once with
// the browser refusing it (Accept-Encoding: identity), plus the same page reloaded with a warm cache. It also
// tells who asked for the language chunk: the page itself (a preload index.html names, fetched alongside the entry)
// or a script once it ran (one more round trip before the first screen).
// Run after `npm run build`: node --import tsx bench/compression.bench.ts
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CONSOLE_DIR } from '../e2e/harness.ts';
import { withMaster } from './support.ts';

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

/** Loads /home signed in and sums the bytes received for every request (headers and bodies) until the network is idle. */
type Load = { requests: number; kB: number; js: number; languageChunk: string };

async function measure(page: Page, url: string): Promise<Load> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const urls = new Map<string, string>();
  let bytes = 0;
  let js = 0;
  let requests = 0;
  const initiators: string[] = [];
  cdp.on(
    'Network.requestWillBeSent',
    (e: { requestId: string; request: { url: string }; initiator: { type: string } }) => {
      urls.set(e.requestId, e.request.url);
      if (/\/assets\/bundle-[a-z]+-/.test(e.request.url)) initiators.push(e.initiator.type);
    },
  );
  cdp.on('Network.loadingFinished', (e: { requestId: string; encodedDataLength: number }) => {
    requests++;
    bytes += e.encodedDataLength;
    if (/\.(js|css)$/.test(urls.get(e.requestId) ?? '')) js += e.encodedDataLength;
  });
  await page.goto(`${url}/home`, { waitUntil: 'networkidle' });
  await page.locator('.app-wrapper').waitFor();
  await cdp.detach();
  const languageChunk = initiators.length ? `requested by ${initiators.join(', ')}` : 'from the cache';
  return { requests, kB: bytes / 1024, js: js / 1024, languageChunk };
}

const options = {
  scratch: 'crawldeck-bench-compress',
  consoleDir: CONSOLE_DIR,
  enableTutorial: false,
  embeddedNode: false,
};
try {
  await withMaster(options, async (master, token) => {
    const results: Record<string, Load> = {};
    for (const mode of ['compressed', 'identity', 'compressed, zh'] as const) {
      const lang = mode === 'compressed, zh' ? 'zh' : 'en';
      const context = await browser.newContext(
        mode === 'identity' ? { extraHTTPHeaders: { 'accept-encoding': 'identity' } } : {},
      );
      // a returning user: the language stored by the console, and the cookie it keeps for the master
      await context.addCookies([{ name: 'lang', value: lang, url: master.url }]);
      await context.addInitScript(
        ([t, l]) => {
          localStorage.setItem('token', t);
          localStorage.setItem('lang', l);
        },
        [token, lang] as const,
      );
      const page = await context.newPage();
      results[mode] = await measure(page, master.url);
      if (mode === 'compressed') results['compressed, reload (warm cache)'] = await measure(page, master.url);
      await context.close();
    }
    for (const [mode, r] of Object.entries(results))
      console.log(
        `${mode.padEnd(34)} ${String(r.requests).padStart(3)} requests ${r.kB.toFixed(1).padStart(8)} kB on the wire (JS+CSS ${r.js.toFixed(1)} kB), language chunk ${r.languageChunk}`,
      );
  });
} finally {
  await browser.close();
}

/**
 * Spider-building journeys: a configurable spider built only in the console (add dialog with a template, Rules
 * form, extract fields, preview, Config tab YAML) scrapes a local paginated list + detail site completely; a
 * Scrapy project zip shows its spiders, settings, items and pipelines in the Scrapy panel and edits land in the
 * project's files.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { e2eTest, useE2E } from './harness.ts';
import { shot, signIn, zipFolder } from './journey.ts';
import { apiCaller } from './api-call.ts';

const env = useE2E({ master: { embeddedNode: true } });
const call = apiCaller(() => env.url);

const readSpiderFile = (token: string, id: string, p: string) =>
  call<string>(token, 'GET', `/spiders/${id}/file?path=${encodeURIComponent(p)}`);

// ---------- the local test site: 3 list pages × 5 products, one detail page each ----------

const PAGES = 3;
const PER_PAGE = 5;
let site: http.Server;
let siteUrl = '';

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Shop</title></head><body>${body}</body></html>`);
    };
    if (u.pathname === '/list') {
      const p = Number(u.searchParams.get('page') ?? '1');
      const items = Array.from({ length: PER_PAGE }, (_, i) => (p - 1) * PER_PAGE + i + 1)
        .map(
          (n) =>
            `<li class="product"><a class="title" href="/item/${n}">Product ${n}</a><span class="price">$${n}.00</span></li>`,
        )
        .join('');
      const next = p < PAGES ? `<a class="next" href="/list?page=${p + 1}">Next</a>` : '';
      return html(`<h1>Products, page ${p}</h1><ul class="products">${items}</ul>${next}`);
    }
    const m = /^\/item\/(\d+)$/.exec(u.pathname);
    if (m) return html(`<h1>Product ${m[1]}</h1><p class="desc">Description of product ${m[1]}</p>`);
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => site?.close(r));
});

async function waitTask(token: string, id: string, timeoutMs = 90_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const task = await call<{ status: string; result_count: number; error?: string }>(token, 'GET', `/tasks/${id}`);
    if (['finished', 'error', 'cancelled', 'abnormal'].includes(task.status)) return task;
    if (Date.now() > until) throw new Error(`task ${id} still ${task.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('configurable spider', () => {
  e2eTest(
    'en: built only in the Rules form, preview shows the first rows, a run scrapes every item',
    async ({ page }) => {
      const token = await signIn(page, 'en');
      const name = 'e2e_shop';

      // add dialog: type configurable → template and start URL, created with PUT /config_spiders
      await page.goto(`${env.url}/spiders`);
      await page.locator('[data-testid=spider-add]').click();
      const dlg = page.locator('.spider-add-modal');
      await dlg.waitFor();
      await dlg.locator('[data-testid=spider-name]').fill(name);
      await dlg.getByText('Configurable', { exact: true }).click();
      await dlg.locator('[data-testid=spider-template]').click();
      await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: 'List + detail' }).click();
      await dlg.locator('[data-testid=spider-start-url]').fill(`${siteUrl}/list?page=1`);
      await shot(page, 'config-spider-add-en');
      await dlg.locator('.ant-modal-footer .ant-btn-primary').click();
      await dlg.waitFor({ state: 'hidden' });
      await page.locator('[data-testid=spider-link]', { hasText: name }).click();
      await page.waitForURL(/\/spiders\/[0-9a-f]{24}/);
      const id = /\/spiders\/([0-9a-f]{24})/.exec(page.url())![1];

      // Rules tab: the template's form
      await page.locator('[data-testid=tab-rules]').click();
      const rules = page.locator('[data-testid=rules-tab]');
      await rules.waitFor();
      expect(await rules.locator('[data-testid=rules-start-url]').inputValue()).toBe(`${siteUrl}/list?page=1`);
      expect(await rules.locator('[data-testid=rules-stage]').count()).toBe(2);

      // extract fields suggests the list selector and fields from the start page (not saved)
      await rules.locator('[data-testid=rules-extract]').click();
      await page.locator('.ant-message-notice', { hasText: /Found 5 elements/ }).waitFor({ timeout: 30_000 });
      const suggested = await rules.locator('[data-testid=rules-list-selector]').first().inputValue();
      expect(suggested).toMatch(/li|product/);
      await shot(page, 'config-spider-extract-en');
      await rules.getByRole('button', { name: 'Discard changes' }).click();

      // the form: list stage with pagination, fields, a link to the detail stage; detail stage's description
      const list = rules.locator('[data-testid=rules-stage]').nth(0);
      const detail = rules.locator('[data-testid=rules-stage]').nth(1);
      await list.locator('[data-testid=rules-list-selector]').fill('li.product');
      await list.locator('[data-testid=rules-page-selector]').fill('a.next');
      const f = (stage: typeof list, i: number, tid: string) =>
        stage.locator('[data-testid=rules-field]').nth(i).locator(`[data-testid=${tid}]`);
      await f(list, 0, 'rules-field-selector').fill('a.title');
      await f(list, 1, 'rules-field-selector').fill('a.title');
      expect(await f(list, 1, 'rules-field-attr').inputValue()).toBe('href');
      await list.locator('[data-testid=rules-field-add]').click();
      await f(list, 2, 'rules-field-name').fill('price');
      await f(list, 2, 'rules-field-selector').fill('.price');
      await f(detail, 0, 'rules-field-name').fill('description');
      await f(detail, 0, 'rules-field-selector').fill('p.desc');
      await rules.locator('#delay').fill('0');
      await rules.locator('#max_pages').fill('10');
      await rules.locator('[data-testid=rules-save]').click();
      await page.locator('.ant-message-notice', { hasText: 'Spiderfile saved' }).waitFor();
      const saved = await readSpiderFile(token, id, 'Spiderfile');
      expect(saved).toContain('list_css: li.product');
      expect(saved).toContain('page_css: a.next');
      expect(saved).toContain('css: p.desc');
      // typed settings (not strings)
      expect(saved).toContain('ROBOTSTXT_OBEY: true');
      expect(saved).toMatch(/MAX_PAGES: 10\n/);

      // preview: the first rows, detail fields merged
      await rules.locator('[data-testid=rules-preview]').click();
      const table = page.locator('[data-testid=rules-preview-table]');
      await table.waitFor({ timeout: 30_000 });
      const rows = table.locator('.ant-table-tbody tr.ant-table-row');
      await expect.poll(() => rows.count()).toBe(10);
      const first = await rows.first().innerText();
      expect(first).toContain('Product 1');
      expect(first).toContain('$1.00');
      expect(first).toContain('Description of product 1');
      await shot(page, 'config-spider-rules-preview-en');

      // Config tab: the same Spiderfile as YAML; a bad stage reference is reported with its line; save syncs Rules
      await page.locator('[data-testid=tab-config]').click();
      const config = page.locator('[data-testid=config-tab]');
      await config.locator('.cm-content').waitFor();
      expect(await config.locator('.cm-content').innerText()).toContain('li.product');
      await config.locator('.cm-content').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(saved.replace('next_stage: detail', 'next_stage: nowhere'));
      await config.locator('[data-testid=config-problems]').waitFor();
      expect(await config.locator('[data-testid=config-problems]').innerText()).toMatch(/Line \d+:.*nowhere/);
      await shot(page, 'config-spider-config-problem-en');
      await config.locator('.cm-content').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(saved.replace(/MAX_PAGES: \d+/, 'MAX_PAGES: 2'));
      await config.locator('[data-testid=config-valid]').waitFor();
      await config.locator('[data-testid=config-save]').click();
      await expect
        .poll(async () => (await readSpiderFile(token, id, 'Spiderfile')).includes('MAX_PAGES: 2'))
        .toBe(true);
      await page.locator('[data-testid=tab-rules]').click();
      await expect.poll(() => rules.locator('#max_pages').inputValue()).toBe('2');
      // back to all pages in the form
      await rules.locator('#max_pages').fill('10');
      await rules.locator('[data-testid=rules-save]').click();
      await expect
        .poll(async () => (await readSpiderFile(token, id, 'Spiderfile')).includes('MAX_PAGES: 10'))
        .toBe(true);

      // run it: every item of the site, the first rows equal the preview's
      // with the detail page's Run button (tasks feature), then to the new task
      await page.locator('[data-testid=spider-run]:visible').click();
      await page.locator('.run-dialog .ant-modal-footer .ant-btn-primary').click();
      await page.locator('.run-started .run-view-task').click();
      await page.waitForURL(/\/tasks\/[0-9a-f]{24}/);
      const taskId = /\/tasks\/([0-9a-f]{24})/.exec(page.url())![1];
      const task = await waitTask(token, taskId);
      expect(task.status, task.error).toBe('finished');
      const results = await fetch(`${env.url}/api/tasks/${taskId}/results?page_num=1&page_size=100`, {
        headers: { authorization: token },
      });
      const body = (await results.json()) as { data: Record<string, string>[]; total: number };
      expect(body.total).toBe(PAGES * PER_PAGE);
      const titles = body.data.map((r) => r.title).sort();
      expect(new Set(titles).size).toBe(PAGES * PER_PAGE);
      expect(body.data.find((r) => r.title === 'Product 15')?.description).toBe('Description of product 15');

      // a customized spider: Rules explains it is only for configurable spiders
      const other = await call<{ _id: string }>(token, 'PUT', '/spiders', { name: 'e2e_plain', cmd: 'echo hi' });
      await page.goto(`${env.url}/spiders/${other._id}?tab=rules`);
      await page.locator('[data-testid=rules-not-configurable]').waitFor();
    },
    { timeout: 180_000 },
  );

  e2eTest(
    'zh: convert a configurable spider to customized; failure says Converted unsuccessfully',
    async ({ page }) => {
      const token = await signIn(page, 'zh');
      const sp = await call<{ _id: string }>(token, 'PUT', '/config_spiders', {
        name: 'e2e_convert',
        template: 'list',
        start_url: `${siteUrl}/list`,
      });
      // a broken Spiderfile in the files: conversion fails with the catalogue message
      await call(token, 'POST', `/spiders/${sp._id}/file`, { path: 'Spiderfile', content: 'name: [unclosed' });
      await page.goto(`${env.url}/spiders/${sp._id}?tab=config`);
      await page.locator('[data-testid=config-invalid]').waitFor();
      await shot(page, 'config-spider-config-invalid-zh');
      await page.goto(`${env.url}/spiders/${sp._id}?tab=rules`);
      await page.locator('[data-testid=rules-invalid-stored]').waitFor();
      // fix it through the API, then convert from the console
      await call(token, 'POST', `/config_spiders/${sp._id}/spiderfile`, {
        content: `name: e2e_convert\nstart_url: ${siteUrl}/list\nstages:\n  - name: list\n    is_list: true\n    list_css: li.product\n    fields:\n      - name: title\n        css: a\n`,
      });
      await page.reload();
      // a failing conversion shows the catalogue message with the server's reason
      await page.route('**/api/config_spiders/*/convert', (route) =>
        route.fulfill({
          status: 422,
          contentType: 'application/json',
          body: JSON.stringify({
            status: 'error',
            message: 'Converted unsuccessfully: boom',
            error: 'Converted unsuccessfully: boom',
          }),
        }),
      );
      await page.locator('[data-testid=rules-convert]').click();
      await page.locator('.ant-modal-confirm-confirm .ant-btn-primary').click();
      const failed = page.locator('.ant-modal-confirm-error');
      await failed.locator('.ant-modal-confirm-title', { hasText: '转换失败' }).waitFor();
      expect(await failed.innerText()).toContain('boom');
      await shot(page, 'config-spider-convert-failed-zh');
      await failed.locator('.ant-btn-primary').click();
      await page.unroute('**/api/config_spiders/*/convert');
      // the real conversion: a Scrapy project, customized, shown with the Scrapy panel
      await page.locator('[data-testid=rules-convert]').click();
      await page.locator('.ant-modal-confirm-confirm .ant-btn-primary').click();
      await page.waitForURL(/tab=overview/);
      await page.locator('[data-testid=scrapy-panel]').waitFor();
      const s = await call<{ type: string; is_scrapy: boolean }>(token, 'GET', `/spiders/${sp._id}`);
      expect(s).toMatchObject({ type: 'customized', is_scrapy: true });
      await page.locator('[data-testid=tab-rules]').click();
      await page.locator('[data-testid=rules-not-configurable]').waitFor();
    },
    { timeout: 120_000 },
  );
});

// ---------- Scrapy ----------

describe('scrapy panel', () => {
  let tmp = '';
  beforeAll(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-e2e-scrapy-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  e2eTest(
    'zh: spiders, settings with typed editors, items tree and pipelines of an uploaded project',
    async ({ page }) => {
      const token = await signIn(page, 'zh');
      const proj = path.join(tmp, 'shop');
      execFileSync('/usr/bin/python3', ['-m', 'scrapy', 'startproject', 'shop', proj], { stdio: 'ignore' });
      writeFileSync(
        path.join(proj, 'shop/spiders/products.py'),
        `import scrapy\n\n\nclass ProductsSpider(scrapy.Spider):\n    name = "products"\n    start_urls = ["${siteUrl}/list"]\n\n    def parse(self, response):\n        for li in response.css("li.product"):\n            yield {"title": li.css("a::text").get()}\n`,
      );
      writeFileSync(
        path.join(proj, 'shop/items.py'),
        'import scrapy\n\n\nclass ShopItem(scrapy.Item):\n    title = scrapy.Field()\n',
      );
      const zip = await zipFolder(proj);
      const form = new FormData();
      form.append('name', 'e2e_scrapy');
      form.append('cmd', 'scrapy crawl products');
      form.append('file', new Blob([new Uint8Array(zip)]), 'shop.zip');
      const up = await fetch(`${env.url}/api/spiders`, {
        method: 'PUT',
        headers: { authorization: token },
        body: form,
      });
      const created = ((await up.json()) as { data: { _id: string; is_scrapy: boolean } }).data;
      expect(created.is_scrapy).toBe(true);
      const id = created._id;

      await page.goto(`${env.url}/spiders/${id}`);
      const panel = page.locator('[data-testid=scrapy-panel]');
      await panel.waitFor();
      // spiders (scrapy list)
      await panel.locator('[data-testid=scrapy-spider-row]', { hasText: 'products' }).waitFor({ timeout: 60_000 });
      await panel.scrollIntoViewIfNeeded();
      await shot(page, 'scrapy-panel-spiders-zh');

      // add a spider from a template
      await panel.locator('[data-testid=scrapy-spider-name]').fill('extra');
      await panel.locator('[data-testid=scrapy-spider-domain]').fill('example.com');
      await panel.locator('[data-testid=scrapy-spider-add]').click();
      await panel.locator('[data-testid=scrapy-spider-row]', { hasText: 'extra' }).waitFor({ timeout: 60_000 });

      // settings: ROBOTSTXT_OBEY as a switch, a new DOWNLOAD_DELAY from the autocomplete as a number
      await panel.locator('[data-testid=scrapy-tab-settings]').click();
      const settings = panel.locator('[data-testid=scrapy-settings]');
      const robots = settings.locator('tr[data-key=ROBOTSTXT_OBEY]');
      await robots.waitFor({ timeout: 30_000 });
      expect(await robots.locator('[data-testid=setting-value]').getAttribute('aria-checked')).toBe('true');
      await robots.locator('[data-testid=setting-value]').click();
      await settings.locator('[data-testid=scrapy-setting-add]').click();
      const newRow = settings.locator('tr[data-key=""]');
      await newRow.locator('[data-testid=setting-key] input').fill('DOWNLOAD_DEL');
      await page
        .locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: 'DOWNLOAD_DELAY' })
        .first()
        .click();
      const delay = settings.locator('tr[data-key=DOWNLOAD_DELAY]');
      expect(await delay.locator('[data-testid=setting-type]').innerText()).toContain('数字');
      await delay.locator('input[data-testid=setting-value], [data-testid=setting-value] input').first().fill('2');
      // an object setting with invalid JSON is refused before saving
      await settings.locator('[data-testid=scrapy-setting-add]').click();
      await settings.locator('tr[data-key=""] [data-testid=setting-key] input').fill('DEFAULT_REQUEST_HEAD');
      await page
        .locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: 'DEFAULT_REQUEST_HEADERS' })
        .first()
        .click();
      const headers = settings.locator('tr[data-key=DEFAULT_REQUEST_HEADERS]');
      await headers.locator('textarea[data-testid=setting-value]').fill('{"Accept": ');
      await headers.locator('.scrapy-json-error').waitFor();
      await settings.locator('[data-testid=scrapy-settings-save]').click();
      await page.locator('.ant-message-notice', { hasText: '由于存在错误，无法提交' }).waitFor();
      await headers.locator('textarea[data-testid=setting-value]').fill('{"Accept-Language": "zh"}');
      await shot(page, 'scrapy-panel-settings-zh');
      await settings.locator('[data-testid=scrapy-settings-save]').click();
      await page.locator('.ant-message-notice', { hasText: 'settings.py' }).waitFor({ timeout: 30_000 });
      const py = await readSpiderFile(token, id, 'shop/settings.py');
      expect(py).toContain('ROBOTSTXT_OBEY = False');
      expect(py).toMatch(/DOWNLOAD_DELAY = 2(\.0)?\b/);
      expect(py).toContain('Accept-Language');
      expect(py).toContain('BOT_NAME'); // the rest of the file is kept

      // a broken settings.py: the error stays in the settings section; fixing it clears it on the next success
      await call(token, 'POST', `/spiders/${id}/file`, { path: 'shop/settings.py', content: py + '\nBROKEN = (\n' });
      await settings.locator('.scrapy-toolbar button[aria-label="刷新"]').click();
      await settings.locator('[data-testid=scrapy-error-settings]').waitFor({ timeout: 30_000 });
      await shot(page, 'scrapy-panel-settings-error-zh');
      await panel.locator('[data-testid=scrapy-tab-items]').click();
      const items = panel.locator('[data-testid=scrapy-items]');
      await items.locator('[data-testid=item-node][data-name=ShopItem]').waitFor({ timeout: 30_000 });
      expect(await items.locator('[data-testid=scrapy-error-items]').count()).toBe(0);
      await call(token, 'POST', `/spiders/${id}/file`, { path: 'shop/settings.py', content: py });
      await panel.locator('[data-testid=scrapy-tab-settings]').click();
      await settings.locator('.scrapy-toolbar button[aria-label="刷新"]').click();
      await settings.locator('[data-testid=scrapy-error-settings]').waitFor({ state: 'detached', timeout: 30_000 });

      // items: add a field to ShopItem and a new item class, save to items.py
      await panel.locator('[data-testid=scrapy-tab-items]').click();
      const shopItem = items.locator('.ant-tree-treenode', {
        has: page.locator('[data-testid=item-node][data-name=ShopItem]'),
      });
      await shopItem.hover();
      await shopItem.locator('[data-testid=item-add-field]').click();
      await items.locator('[data-testid=item-name-input]').fill('price');
      await items.locator('[data-testid=item-name-ok]').click();
      await items.locator('[data-testid=item-add]').click();
      await items.locator('[data-testid=item-name-input]').fill('ReviewItem');
      await items.locator('[data-testid=item-name-input]').press('Enter');
      await shot(page, 'scrapy-panel-items-zh');
      await items.locator('[data-testid=scrapy-items-save]').click();
      await page.locator('.ant-message-notice', { hasText: 'items.py' }).waitFor({ timeout: 30_000 });
      const itemsPy = await readSpiderFile(token, id, 'shop/items.py');
      expect(itemsPy).toMatch(/price = scrapy\.Field\(\)/);
      expect(itemsPy).toContain('class ReviewItem');

      // pipelines list
      await panel.locator('[data-testid=scrapy-tab-pipelines]').click();
      const pipes = panel.locator('[data-testid=scrapy-pipelines]');
      await pipes.locator('.ant-table-row', { hasText: 'shop.pipelines.ShopPipeline' }).waitFor({ timeout: 30_000 });
      await pipes
        .locator('.ant-table-row', { hasText: 'shop.pipelines.ShopPipeline' })
        .locator('[data-testid=pipeline-enabled]')
        .click();
      await pipes.locator('[data-testid=scrapy-pipelines-save]').click();
      await page.locator('.ant-message-notice', { hasText: 'Pipelines' }).waitFor({ timeout: 30_000 });
      expect(await readSpiderFile(token, id, 'shop/settings.py')).toMatch(
        /ITEM_PIPELINES = \{[^}]*shop\.pipelines\.ShopPipeline/,
      );
      await shot(page, 'scrapy-panel-pipelines-zh');

      // jump to a spider's file
      await panel.locator('[data-testid=scrapy-tab-spiders]').click();
      await panel
        .locator('[data-testid=scrapy-spider-row]', { hasText: 'products' })
        .locator('[data-testid=scrapy-jump]')
        .click();
      await page.waitForURL(/tab=files/);
      await page.locator('.files-editor-path', { hasText: 'shop/spiders/products.py' }).waitFor();
      expect(await page.locator('.cm-content').innerText()).toContain('class ProductsSpider');
      await shot(page, 'scrapy-jump-to-file-zh');
    },
    { timeout: 240_000 },
  );
});

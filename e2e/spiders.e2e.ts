/**
 * Spiders, files and projects through the console, in zh and en, in a real Chromium:
 * create a project, upload a zip spider into it, open its files, edit and save main.py (checked through the
 * API), rename and delete a file, set an environment variable, find the spider by search and by project
 * filter, delete it. One screenshot of each screen per language goes to test-output/screens/.
 */
import { describe, expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { e2eTest, login, useE2E } from './harness.ts';
import { shot, zipFiles } from './journey.ts';

// E2E_CONSOLE_DIR serves a console build other than packages/console/dist (a private build while others rebuild).
const env = useE2E(process.env.E2E_CONSOLE_DIR ? { master: { consoleDir: process.env.E2E_CONSOLE_DIR } } : {});

/** Calls the API as the signed-in browser user (same token) from the test process. */
async function apiCall<T = unknown>(
  page: Page,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; data: T }> {
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const res = await fetch(`${env.url}/api${url}`, {
    method,
    headers: { Authorization: token ?? '', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as { data: T };
  return { status: res.status, data: json.data };
}

const toast = (page: Page, text: string) => page.locator('.ant-message-notice', { hasText: text }).first();
const modal = (page: Page) => page.locator('.ant-modal:visible').last();
const confirmDialog = (page: Page) => page.locator('.ant-modal-confirm:visible').last();
/** antd puts a space between the two characters of a two-character Chinese button label. */
const label = (text: string) =>
  new RegExp(
    text
      .split('')
      .map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s*'),
  );

/** Opens an antd Select and picks the option with this label. */
async function pick(page: Page, select: Locator, label: string): Promise<void> {
  await select.click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: label }).first().click();
}

async function menu(page: Page, text: string): Promise<void> {
  await page.locator('.sidebar-container .ant-menu-item', { hasText: text }).first().click();
}

const T = {
  zh: {
    projects: '项目',
    spiders: '爬虫',
    addProject: '添加项目',
    save: '保存',
    addSpider: '添加爬虫',
    create: '创建',
    created: '爬虫已创建',
    files: '文件',
    environment: '环境',
    overview: '概览',
    saved: '已保存 main.py',
    unsavedTitle: '有未保存的修改',
    cancel: '取消',
    confirm: '确认',
    rename: '重命名',
    ok: '确定',
    deleted: '已删除',
    addVar: '添加变量',
    envSaved: '环境变量已保存',
    spiderDeleted: '爬虫已删除',
    spiderCount1: '1 个爬虫',
    hint: '上传的文件必须是 zip 压缩包，且文件位于压缩包根目录',
    submitErrors: '存在错误，无法提交',
    dedupRequired: '开启去重时必须填写去重字段',
    importBtn: '导入',
    importFailed: '导入失败',
    binary: '二进制文件',
  },
  en: {
    projects: 'Projects',
    spiders: 'Spiders',
    addProject: 'Add project',
    save: 'Save',
    addSpider: 'Add spider',
    create: 'Create',
    created: 'Spider created',
    files: 'Files',
    environment: 'Environment',
    overview: 'Overview',
    saved: 'Saved main.py',
    unsavedTitle: 'Unsaved changes',
    cancel: 'Cancel',
    confirm: 'Confirm',
    rename: 'Rename',
    ok: 'OK',
    deleted: 'Deleted',
    addVar: 'Add variable',
    envSaved: 'Environment variables saved',
    spiderDeleted: 'Spider deleted',
    spiderCount1: '1 spider',
    hint: 'Uploads must be a zip with files at its root',
    submitErrors: 'Unable to submit because of some errors',
    dedupRequired: 'The deduplication field is required when deduplication is on',
    importBtn: 'Import',
    importFailed: 'Import failed',
    binary: 'Binary file',
  },
} as const;

interface SpiderRow {
  _id: string;
  name: string;
  project_id: string | null;
  envs: { name: string; value: string }[];
}

for (const lang of ['zh', 'en'] as const) {
  const L = T[lang];
  const projectName = `${lang === 'zh' ? '新闻项目' : 'News project'} ${lang}`;
  const spiderName = `news_${lang}`;
  const otherName = `other_${lang}`;

  describe(`spiders console (${lang})`, () => {
    e2eTest(`${lang}: project, zip spider, files, environment, search, filter, delete`, async ({ page }) => {
      // Test machines are often busy with other runs: allow slow answers.
      page.setDefaultTimeout(30_000);
      // No guided tour over the screens: the console skips its tours when enableTutorial is 0.
      await page.goto(`${env.url}/login`);
      await page.evaluate(() => localStorage.setItem('enableTutorial', '0'));
      await login(page, lang);

      // ---- a second spider without a project, so the project filter has something to exclude
      expect((await apiCall(page, 'PUT', '/spiders', { name: otherName, cmd: 'python run.py' })).status).toBe(200);

      // ---- create a project
      await menu(page, L.projects);
      await page.waitForURL(/\/projects$/);
      await page
        .getByRole('button', { name: label(L.addProject) })
        .first()
        .click();
      await modal(page).locator('input#name').fill(projectName);
      await modal(page).locator('textarea#description').fill('e2e');
      const tags = modal(page).locator('.ant-select').first();
      const tagInput = tags.locator('input');
      await tagInput.click();
      await tagInput.fill('news');
      await tagInput.press('Enter');
      await tags.locator('.ant-select-selection-item', { hasText: 'news' }).waitFor();
      await tagInput.press('Escape');
      await modal(page)
        .getByRole('button', { name: label(L.save) })
        .click();
      const card = page.locator('[data-testid=project-card]', { hasText: projectName });
      await card.waitFor();
      await card.locator('.ant-tag', { hasText: 'news' }).waitFor();
      await shot(page, `projects-${lang}`);
      // filter by tag
      await pick(page, page.locator('.projects-toolbar .ant-select').first(), 'news');
      await card.waitFor();
      await page.locator('.projects-toolbar .ant-select-clear').first().click({ force: true });

      // ---- add a spider from a zip, into the project
      await menu(page, L.spiders);
      await page.waitForURL(/\/spiders$/);
      await page.getByRole('button', { name: label(L.addSpider) }).click();
      const add = modal(page);
      await add.locator('input#name').fill(spiderName);
      expect(await add.locator('input#col').inputValue()).toBe(`results_${spiderName}`);
      await add.locator('input#cmd').fill('python main.py');
      await pick(page, add.locator('.ant-select').first(), projectName);
      await add.getByText(L.hint).waitFor();
      const zip = await zipFiles({
        'main.py': 'import os\n\nprint("hello")\n',
        'README.md': '# news\n',
        'notes.txt': 'to be deleted\n',
        'lib/util.py': 'def f():\n    return 1\n',
        'logo.bin': Buffer.from([0, 1, 2, 3, 0, 255, 254]),
      });
      await add
        .locator('input[type=file]')
        .setInputFiles({ name: 'spider.zip', mimeType: 'application/zip', buffer: zip });
      await add.locator('.ant-upload-list-item', { hasText: 'spider.zip' }).waitFor();
      await shot(page, `spider-add-${lang}`);
      await add.getByRole('button', { name: label(L.create) }).click();
      await toast(page, L.created).waitFor();
      const row = page.locator('.ant-table-row', { hasText: spiderName });
      await row.waitFor();
      await shot(page, `spiders-${lang}`);

      const list = await apiCall<{ list: SpiderRow[] }>(page, 'GET', `/spiders?keyword=${spiderName}`);
      const spider = list.data.list.find((s) => s.name === spiderName)!;
      expect(spider).toBeTruthy();
      const projects = await apiCall<{ _id: string; name: string; spider_count: number }[]>(page, 'GET', '/projects');
      const project = projects.data.find((p) => p.name === projectName)!;
      expect(spider.project_id).toBe(project._id);

      // the project card counts it
      await menu(page, L.projects);
      await page.locator('[data-testid=project-card]', { hasText: projectName }).getByText(L.spiderCount1).waitFor();
      await menu(page, L.spiders);

      // ---- open the spider; the overview form refuses dedup switched on without a dedup field
      await row.getByRole('link', { name: spiderName }).click();
      await page.waitForURL(new RegExp(`/spiders/${spider._id}`));
      await page.locator('[data-testid=spider-title]', { hasText: spiderName }).waitFor();
      const overview = page.locator('[data-testid=spider-overview-form]');
      await overview.waitFor();
      await shot(page, `spider-overview-${lang}`);
      await overview.locator('[data-testid=overview-dedup]').click();
      await overview.locator('[data-testid=overview-save]').click();
      await toast(page, L.submitErrors).waitFor();
      await overview.getByText(L.dedupRequired).waitFor();
      await overview.locator('[data-testid=overview-dedup-field]').fill('url');
      await overview.locator('[data-testid=overview-save]').click();
      await expect
        .poll(
          async () =>
            (await apiCall<{ is_dedup: boolean; dedup_field: string }>(page, 'GET', `/spiders/${spider._id}`)).data
              .dedup_field,
          { timeout: 10_000 },
        )
        .toBe('url');

      // ---- files: tree, open main.py, edit and save with Ctrl+S
      await page.locator('[data-testid=tab-files]').click();
      await page.waitForURL(/tab=files/);
      const tree = page.locator('[data-testid=files-tree]');
      const node = (p: string) => tree.locator(`[data-testid=file-node][data-path="${p}"]`);
      await node('main.py').waitFor();
      // directories first, then names descending, as the server lists them
      const order = await tree
        .locator('[data-testid=file-node]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
      expect(order).toEqual(['lib', 'notes.txt', 'main.py', 'logo.bin', 'README.md']);
      await node('main.py').click();
      const editor = page.locator('.files-editor .cm-content');
      await editor.waitFor();
      await expect.poll(() => editor.innerText()).toContain('print("hello")');
      await editor.click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type(`# edited-${lang}`);
      await page.locator('[data-testid=unsaved-indicator]').waitFor();

      // unsaved-change guard: switching file asks first; cancel keeps the edit
      await node('README.md').click();
      await confirmDialog(page).locator('.ant-modal-confirm-title', { hasText: L.unsavedTitle }).waitFor();
      await confirmDialog(page)
        .getByRole('button', { name: label(L.cancel) })
        .click();
      expect(await page.locator('[data-testid=open-path]').innerText()).toBe('main.py');
      // ... and so does leaving the page
      await menu(page, L.spiders);
      await confirmDialog(page).locator('.ant-modal-confirm-title', { hasText: L.unsavedTitle }).waitFor();
      await confirmDialog(page)
        .getByRole('button', { name: label(L.cancel) })
        .click();
      await confirmDialog(page).waitFor({ state: 'detached' });
      expect(new URL(page.url()).pathname).toBe(`/spiders/${spider._id}`);
      await page.locator('[data-testid=unsaved-indicator]').waitFor();
      await shot(page, `spider-files-${lang}`);

      await editor.click();
      await page.keyboard.press('Control+s');
      await toast(page, L.saved).waitFor();
      await page.locator('[data-testid=unsaved-indicator]').waitFor({ state: 'detached' });
      const saved = await apiCall<string>(page, 'GET', `/spiders/${spider._id}/file?path=main.py`);
      expect(saved.data).toContain(`# edited-${lang}`);
      expect(saved.data).toContain('print("hello")');

      // second edit saved with the button
      await editor.click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type(' (button)');
      await page.locator('[data-testid=file-save]').click();
      await expect
        .poll(async () => (await apiCall<string>(page, 'GET', `/spiders/${spider._id}/file?path=main.py`)).data)
        .toContain(`# edited-${lang} (button)`);

      // a binary file is not opened in the editor
      await node('logo.bin').click();
      await page.locator('[data-testid=binary-file]').getByText(L.binary).waitFor();

      // ---- rename README.md -> docs/README.md is a move; keep it simple: rename to GUIDE.md
      await node('README.md').click();
      await expect.poll(() => page.locator('[data-testid=open-path]').innerText()).toBe('README.md');
      await page.locator('[data-testid=file-rename]').click();
      await modal(page).locator('[data-testid=path-input]').fill('GUIDE.md');
      await modal(page)
        .getByRole('button', { name: label(L.ok) })
        .click();
      await node('GUIDE.md').waitFor();
      await expect(node('README.md').count()).resolves.toBe(0);
      const root = await apiCall<{ path: string }[]>(page, 'GET', `/spiders/${spider._id}/dir?path=`);
      expect(root.data.map((e) => e.path)).toContain('GUIDE.md');
      expect(root.data.map((e) => e.path)).not.toContain('README.md');

      // ---- delete notes.txt with confirmation
      await node('notes.txt').click();
      // Delete acts on the open file: wait until notes.txt is the one open, not the file renamed just before
      await expect.poll(() => page.locator('[data-testid=open-path]').innerText()).toBe('notes.txt');
      await page.locator('[data-testid=file-delete]').click();
      await confirmDialog(page)
        .getByRole('button', { name: label(L.confirm) })
        .click();
      await toast(page, L.deleted).waitFor();
      await node('notes.txt').waitFor({ state: 'detached' });
      const afterDelete = await apiCall<{ path: string }[]>(page, 'GET', `/spiders/${spider._id}/dir?path=`);
      expect(afterDelete.data.map((e) => e.path)).not.toContain('notes.txt');

      // ---- new folder, then a new file inside it (opens in the editor)
      await page.locator('[data-testid=files-new-dir]').click();
      await modal(page).locator('[data-testid=path-input]').fill('pkg');
      await modal(page)
        .getByRole('button', { name: label(L.ok) })
        .click();
      await node('pkg').waitFor();
      await page.locator('[data-testid=files-new-file]').click(); // the new folder is selected
      await modal(page).locator('[data-testid=path-input]').fill('extra.py');
      await modal(page)
        .getByRole('button', { name: label(L.ok) })
        .click();
      await node('pkg/extra.py').waitFor();
      await expect.poll(() => page.locator('[data-testid=open-path]').innerText()).toBe('pkg/extra.py');
      expect((await apiCall<string>(page, 'GET', `/spiders/${spider._id}/file?path=pkg/extra.py`)).status).toBe(200);

      // ---- environment variable
      await page.locator('[data-testid=tab-environment]').click();
      await page.getByRole('button', { name: label(L.addVar) }).click();
      await page.locator('[data-testid=env-name]').last().fill('MY_VAR');
      await page.locator('[data-testid=env-value]').last().fill(`value-${lang}`);
      await shot(page, `spider-env-${lang}`);
      await page.locator('[data-testid=env-save]').click();
      await toast(page, L.envSaved).waitFor();
      const withEnv = await apiCall<SpiderRow>(page, 'GET', `/spiders/${spider._id}`);
      expect(withEnv.data.envs).toEqual([{ name: 'MY_VAR', value: `value-${lang}` }]);

      // the Analytics tab shows the spider's statistics
      await page.locator('[data-testid=tab-analytics]').click();
      await page.locator('[data-testid=spider-stats]').waitFor();

      // ---- back to the list: find by search, and by project filter
      await menu(page, L.spiders);
      await page.waitForURL(/\/spiders$/);
      const search = page
        .locator('.spiders-toolbar input[type=search], .spiders-toolbar .ant-input-search input')
        .first();
      await search.fill(spiderName);
      await search.press('Enter');
      await page.locator('.ant-table-row', { hasText: spiderName }).waitFor();
      await page.locator('.ant-table-row', { hasText: otherName }).waitFor({ state: 'detached' });
      await search.fill('no-such-spider-xyz');
      await search.press('Enter');
      await page.locator('.ant-table-row', { hasText: spiderName }).waitFor({ state: 'detached' });
      await search.fill('');
      await search.press('Enter');
      await page.locator('.ant-table-row', { hasText: otherName }).waitFor();

      await pick(page, page.locator('[data-testid=spider-project-filter]').first(), projectName);
      await page.locator('.ant-table-row', { hasText: spiderName }).waitFor();
      await page.locator('.ant-table-row', { hasText: otherName }).waitFor({ state: 'detached' });

      // ---- delete it, with confirmation
      await page.locator('.ant-table-row', { hasText: spiderName }).locator('[data-testid=spider-delete]').click();
      await confirmDialog(page)
        .getByRole('button', { name: label(L.confirm) })
        .click();
      await page.locator('.ant-table-row', { hasText: spiderName }).waitFor({ state: 'detached' });
      expect((await apiCall(page, 'GET', `/spiders/${spider._id}`)).status).toBe(404);
      // the kept-alive detail view of the deleted spider is not refetched into error toasts
      await page.waitForTimeout(1000);
      expect(await page.locator('.ant-message-notice .anticon-close-circle').count()).toBe(0);

      // import dialog shows the server's error (screenshot of the dialog)
      await page.getByRole('button', { name: label(L.importBtn) }).click();
      await modal(page).locator('[data-testid=import-url]').fill('http://127.0.0.1:1/owner/repo');
      await modal(page)
        .getByRole('button', { name: label(L.importBtn) })
        .click();
      await modal(page).getByText(L.importFailed).waitFor({ timeout: 30_000 });
      await shot(page, `spider-import-${lang}`);
    });
  });
}

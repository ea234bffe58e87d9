/** Console shell journeys (sign-in, layout, tabs, language, routes and the re-login dialog), in zh and en, in a real Chromium. */
import { describe, expect } from 'vitest';
import { ADMIN_PASSWORD, ADMIN_USERNAME, e2eTest, login, loginByApi, screenshot, useE2E } from './harness.ts';
import {
  box,
  cookie,
  crumbs,
  expectText,
  expectTitle,
  formErrors,
  menuItem,
  tab,
  tabs,
  texts,
  toast,
} from './shell.parts.ts';

const env = useE2E();

/** Sign-up is closed on a fresh master: an administrator opens it (Settings → General) before visitors sign up. */
async function openSignUp() {
  const post = (route: string, body: unknown, token = '') =>
    fetch(`${env.url}/api${route}`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const signedIn = (await (await post('/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD })).json()) as {
    data: string;
  };
  expect((await post('/setting', { allow_signup: 'Y' }, signedIn.data)).status).toBe(200);
}

describe('console shell', () => {
  e2eTest('zh: route guard, bad login message, login, ids, title', async ({ page }) => {
    await page.goto(`${env.url}/spiders`);
    await page.waitForURL(/\/login$/);
    await expectTitle(page, 'Crawldeck - 登录');
    await expect(page.locator('#app-loading').count()).resolves.toBe(0);

    // uid (localStorage) and sid (sessionStorage): 36-char v4-style ids
    const ids = await page.evaluate(() => ({ uid: localStorage.getItem('uid'), sid: sessionStorage.getItem('sid') }));
    expect(ids.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids.sid).toHaveLength(36);
    expect(ids.sid).not.toBe(ids.uid);

    // empty form: the form's own messages in zh
    await page.locator('button[type=submit]').click();
    await expectText(formErrors(page), '请输入正确的用户名');
    await expectText(formErrors(page), '密码长度不能少于 5 位');

    await page.locator('input#username').fill('  admin  ');
    await page.locator('input#password').fill('wrong-password');
    await page.locator('button[type=submit]').click();
    await expectText(toast(page), '登录时发生错误（请阅读文档 Q&A）');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

    await page.locator('input#password').fill('admin-pass');
    await page.locator('button[type=submit]').click(); // username trimmed
    await page.waitForURL(/\/home$/);
    await page.locator('.app-wrapper').waitFor();
    await expectTitle(page, 'Crawldeck - 主页');
    await page.locator('.user-entry', { hasText: 'admin' }).waitFor();
    await page.waitForFunction(
      () => sessionStorage.getItem('v') === '4.0.0' && localStorage.getItem('enableTutorial') !== null,
    );
    const stored = await page.evaluate(() => ({
      token: localStorage.getItem('token'),
      info: JSON.parse(localStorage.getItem('user_info') ?? 'null'),
      enableTutorial: localStorage.getItem('enableTutorial'),
    }));
    expect(stored.token).toBeTruthy();
    expect(stored.info.username).toBe('admin');
    expect(stored.info.role).toBe('admin');
    expect(['0', '1']).toContain(stored.enableTutorial);
    // Chinese renders in the menu and the logo shows mark, name and version
    await menuItem(page, '爬虫').waitFor();
    expect(await texts(page.locator('.sidebar-logo span'))).toEqual(['CD', 'Crawldeck', 'v4.0']);
    await page.waitForTimeout(500);
    await screenshot(page, 'review-zh-home');
  });

  e2eTest('en: bad login message and logout', async ({ page }) => {
    await page.goto(`${env.url}/login`);
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
    await page.reload();
    await expectTitle(page, 'Crawldeck - Login');
    await page.locator('input#username').fill('nobody');
    await page.locator('input#password').fill('wrong-password');
    await page.locator('button[type=submit]').click();
    await expectText(toast(page), 'Error when logging in (Please read documentation Q&A)');

    await login(page);
    await page.locator('.user-entry').click();
    await page.locator('.ant-dropdown-menu-item', { hasText: 'Logout' }).click();
    await page.waitForURL(/\/login$/);
    const after = await page.evaluate(() => ({
      token: localStorage.getItem('token'),
      info: localStorage.getItem('user_info'),
    }));
    expect(after).toEqual({ token: null, info: null });
    // the old session is gone on the server too
    await page.goto(`${env.url}/tasks`);
    await page.waitForURL(/\/login$/);
  });

  e2eTest('en: sign-up refusals and a normal user without the admin-only menu', async ({ page }) => {
    // Sign-up is closed on a fresh master: an administrator opens it first.
    await openSignUp();
    await page.goto(`${env.url}/login`);
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
    await page.goto(`${env.url}/signup`);
    await expectTitle(page, 'Crawldeck - Sign up');
    await page.locator('input#confirmPassword').waitFor();

    const submit = async (username: string, password: string, confirm = password) => {
      await page.locator('input#username').fill(username);
      await page.locator('input#password').fill(password);
      await page.locator('input#confirmPassword').fill(confirm);
      await page.locator('button[type=submit]').click();
    };

    await submit('newuser', 'abcd'); // 4 characters
    await expectText(formErrors(page), 'The password must be at least 5 characters long');
    await submit('u'.repeat(101), 'abcde');
    await expectText(formErrors(page), 'Please enter the correct username');
    await submit('newuser', 'abcde', 'abcdf');
    await expectText(formErrors(page), 'Two passwords do not match');
    await submit('admin', 'abcdef');
    await expectText(toast(page), 'username already exists');
    expect(page.url()).toMatch(/\/signup$/);

    await submit('alice', 'alice-pass');
    await page.waitForURL(/\/home$/);
    await page.locator('.user-entry', { hasText: 'alice' }).waitFor();
    await menuItem(page, 'Spiders').waitFor();
    expect(await menuItem(page, 'Users').count()).toBe(0); // admin-only list
  });

  e2eTest('en: sidebar 180/36 px with cookie, navbar 50 px, tab strip 34 px, breadcrumb', async ({ page }) => {
    await login(page, 'en');
    expect((await box(page, '.sidebar-container')).width).toBe(180);
    expect((await box(page, '.navbar')).height).toBe(50);
    expect((await box(page, '.tags-view-container')).height).toBe(34);
    await expect.poll(() => texts(crumbs(page))).toEqual(['Home']);

    await page.locator('.hamburger-container').click();
    await page.waitForFunction(
      () => document.querySelector('.sidebar-container')!.getBoundingClientRect().width === 36,
    );
    expect(await cookie(page, 'sidebarStatus')).toBe('0');
    expect(await page.locator('.logo-title').isVisible()).toBe(false);
    expect(await page.locator('.logo-mark').isVisible()).toBe(true);
    await page.waitForTimeout(400);
    await screenshot(page, 'review-en-collapsed');
    await page.reload();
    await page.locator('.app-wrapper').waitFor();
    expect((await box(page, '.sidebar-container')).width).toBe(36);
    await page.locator('.hamburger-container').click();
    await page.waitForFunction(
      () => document.querySelector('.sidebar-container')!.getBoundingClientRect().width === 180,
    );
    expect(await cookie(page, 'sidebarStatus')).toBe('1');

    // breadcrumb: prefixed with Home, last crumb not clickable, parents are links
    await page.goto(`${env.url}/spiders/5f0000000000000000000001`);
    await page.locator('[data-page="spiderDetail"]').waitFor();
    await expect.poll(() => texts(crumbs(page))).toEqual(['Home', 'Spiders', 'Spider Detail']);
    await expect.poll(() => page.locator('.app-breadcrumb a').allInnerTexts()).toEqual(['Home', 'Spiders']);
    // active sidebar entry = first path segment
    await expect(page.locator('.sidebar-container .ant-menu-item-selected').innerText()).resolves.toBe('Spiders');
    await page.locator('.app-breadcrumb a', { hasText: 'Spiders' }).click();
    await page.waitForURL(/\/spiders$/);
    await expect.poll(() => texts(crumbs(page))).toEqual(['Home', 'Spiders']);
    await expect.poll(() => page.locator('.app-breadcrumb a').allInnerTexts()).toEqual(['Home']);
  });

  e2eTest('en: tabs, context menu, middle-click, close active, keep-alive and refresh', async ({ page }) => {
    await login(page, 'en');
    for (const name of ['Spiders', 'Tasks', 'Nodes']) {
      await menuItem(page, name).click();
      await page.locator('.app-view:visible .app-page-title', { hasText: name }).waitFor();
    }
    await expect.poll(() => texts(tabs(page))).toEqual(['Home', 'Spiders', 'Tasks', 'Nodes']);
    expect(await tab(page, '/home').locator('.tags-view-close').count()).toBe(0); // affix
    expect(await tab(page, '/tasks').locator('.tags-view-close').count()).toBe(1);
    expect(await page.locator('.tags-view-item.active').innerText()).toBe('Nodes');

    // right-click menu at the click point (offset 15), min width 105
    const t = await tab(page, '/tasks').boundingBox();
    const cx = t!.x + t!.width / 2;
    const cy = t!.y + t!.height / 2;
    await page.mouse.click(cx, cy, { button: 'right' });
    const menu = page.locator('.contextmenu');
    await menu.waitFor();
    expect(await texts(menu.locator('li'))).toEqual(['Refresh', 'Close', 'Close Others', 'Close All']);
    const m = await menu.boundingBox();
    expect(m!.width).toBeGreaterThanOrEqual(105);
    expect(Math.abs(m!.x - (cx + 15))).toBeLessThanOrEqual(1);
    expect(Math.abs(m!.y - cy)).toBeLessThanOrEqual(1);
    await menu.locator('li', { hasText: /^Close$/ }).click();
    await expect.poll(() => texts(tabs(page))).toEqual(['Home', 'Spiders', 'Nodes']);
    expect(page.url()).toMatch(/\/nodes$/);

    // pinned tab: no Close entry
    await tab(page, '/home').click({ button: 'right' });
    expect(await texts(menu.locator('li'))).toEqual(['Refresh', 'Close Others', 'Close All']);
    await page.mouse.click(5, 700); // click elsewhere closes the menu
    await menu.waitFor({ state: 'detached' });

    // middle-click closes
    await tab(page, '/spiders').click({ button: 'middle' });
    await expect.poll(() => texts(tabs(page))).toEqual(['Home', 'Nodes']);

    // closing the active tab moves to the last remaining tab
    await menuItem(page, 'Schedules').click();
    await page.waitForURL(/\/schedules$/);
    await tab(page, '/schedules').locator('.tags-view-close').click();
    await page.waitForURL(/\/nodes$/);
    await expect.poll(() => texts(tabs(page))).toEqual(['Home', 'Nodes']);

    // keep-alive: a visited view keeps its DOM (and so its state) when left; Refresh remounts it
    await menuItem(page, 'Settings').click();
    const settingsView = page.locator('.app-view[data-view="/setting"]');
    await settingsView.locator(':scope > *').first().waitFor();
    const mark = () =>
      settingsView
        .locator(':scope > *')
        .first()
        .evaluate((el) => ((el as HTMLElement).dataset.e2eMark = 'kept'));
    const marked = () =>
      settingsView
        .locator(':scope > *')
        .first()
        .evaluate((el) => (el as HTMLElement).dataset.e2eMark ?? null);
    await mark();
    await tab(page, '/home').click();
    await page.waitForURL(/\/home$/);
    await expect.poll(() => settingsView.isVisible()).toBe(false); // after the fade-slide transition
    expect(await settingsView.count()).toBe(1); // still mounted, hidden
    await tab(page, '/setting').click();
    await page.waitForURL(/\/setting$/);
    expect(await marked()).toBe('kept');
    await tab(page, '/setting').click({ button: 'right' });
    await menu.locator('li', { hasText: 'Refresh' }).click();
    await expect.poll(marked).toBeNull();

    // Close Others keeps the pinned tab and the chosen one
    await menuItem(page, 'Projects').click();
    await tab(page, '/nodes').click({ button: 'right' });
    await menu.locator('li', { hasText: 'Close Others' }).click();
    await page.waitForURL(/\/nodes$/);
    await expect.poll(() => texts(tabs(page))).toEqual(['Home', 'Nodes']);

    // Close All leaves only pinned tabs and goes to the last one
    await tab(page, '/nodes').click({ button: 'right' });
    await menu.locator('li', { hasText: 'Close All' }).click();
    await page.waitForURL(/\/home$/);
    await expect.poll(() => texts(tabs(page))).toEqual(['Home']);
  });

  e2eTest('language switch persists under lang; antd locale follows', async ({ page }) => {
    await login(page, 'en');
    await menuItem(page, 'Spiders').waitFor();
    await page.locator('.lang-entry').click();
    await page.locator('.ant-dropdown-menu-item', { hasText: '中文' }).click();
    await menuItem(page, '爬虫').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe('zh');
    await expectTitle(page, 'Crawldeck - 主页');
    await expect.poll(() => texts(tabs(page))).toEqual(['主页']);
    await page.reload();
    await menuItem(page, '定时任务').waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    // antd's own texts are Chinese (Empty default description inside the Modal-less Tabs page uses ours; check a Result)
    await page.goto(`${env.url}/setting`);
    await page.locator('[data-page="setting"] .ant-tabs-tab', { hasText: '全局变量' }).waitFor();
    await page.locator('.group-entry').hover();
    const qr = page.locator('.group-qr');
    await qr.waitFor();
    await page.waitForTimeout(400); // popover zoom animation
    expect(await qr.evaluate((el) => (el as HTMLImageElement).getBoundingClientRect().width)).toBe(240);
    await page.waitForTimeout(400);
    await screenshot(page, 'review-zh-setting-popover');
    await page.mouse.move(600, 500);
    await page.locator('.lang-entry').click();
    await page.locator('.ant-dropdown-menu-item', { hasText: 'English' }).click();
    await menuItem(page, 'Schedules').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe('en');
    await expectTitle(page, 'Crawldeck - Settings');
  });

  e2eTest('/ goes to /home, unknown paths go to /404', async ({ page }) => {
    await loginByApi(page, 'en');
    await page.goto(`${env.url}/`);
    await page.waitForURL(/\/home$/);
    await page.goto(`${env.url}/no/such/page`);
    await page.waitForURL(/\/404$/);
    await page.locator('.ant-result-404').waitFor();
    await expectTitle(page, 'Crawldeck - Not Found');
    // disabled definitions are not routed
    await page.goto(`${env.url}/market`);
    await page.waitForURL(/\/404$/);
    await page.goto(`${env.url}/challenges`);
    await page.waitForURL(/\/404$/);
  });

  e2eTest('401 opens one re-login dialog; Cancel stays, Confirm clears the token and reloads', async ({ page }) => {
    await login(page, 'en');
    await page.evaluate(() => localStorage.setItem('token', 'corrupt-token'));
    await menuItem(page, 'Tasks').click();
    const dialog = page.locator('.ant-modal-confirm');
    await dialog.locator('.ant-modal-confirm-title', { hasText: 'Confirm logout' }).waitFor();
    await expectText(dialog, 'You have been logged out, you can cancel to stay on this page, or log in again');
    await dialog.locator('button', { hasText: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(page.url()).toMatch(/\/tasks$/);

    // a reload asks GET /me: the dialog again, and no error toast behind it
    await page.reload();
    await dialog.first().waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.locator('.ant-message-notice').count()).toBe(0);
    await dialog.locator('button', { hasText: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    await menuItem(page, 'Nodes').click();
    await dialog.first().waitFor();
    await page.goBack(); // another 401 while the dialog is open
    await page.waitForURL(/\/tasks$/);
    await page.waitForTimeout(500);
    expect(await dialog.count()).toBe(1); // only one at a time
    await dialog.locator('button', { hasText: 'Confirm' }).click();
    await page.waitForURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  });

  e2eTest(
    'mobile (800 px): sidebar is a drawer with a backdrop; tapping it or navigating closes it',
    async ({ page }) => {
      await login(page, 'zh');
      const wrapper = page.locator('.app-wrapper');
      expect(await wrapper.getAttribute('data-device')).toBe('mobile');
      await page.waitForFunction(
        () => document.querySelector('.sidebar-container')!.getBoundingClientRect().right <= 0,
      );
      expect(await page.locator('.drawer-bg').count()).toBe(0);
      expect((await box(page, '.main-container')).x).toBe(0);

      await page.locator('.hamburger-container').click();
      await page.locator('.drawer-bg').waitFor();
      await page.waitForFunction(() => {
        const r = document.querySelector('.sidebar-container')!.getBoundingClientRect();
        return r.left === 0 && r.width === 180;
      });
      await page.waitForTimeout(400);
      await screenshot(page, 'review-zh-mobile-drawer');
      await page.mouse.click(600, 400); // backdrop
      await page.locator('.drawer-bg').waitFor({ state: 'detached' });
      await page.waitForFunction(
        () => document.querySelector('.sidebar-container')!.getBoundingClientRect().right <= 0,
      );

      await page.locator('.hamburger-container').click();
      await page.locator('.drawer-bg').waitFor();
      await menuItem(page, '任务').click();
      await page.waitForURL(/\/tasks$/);
      await page.locator('.drawer-bg').waitFor({ state: 'detached' });

      // growing the window makes it a desktop again
      await page.setViewportSize({ width: 1300, height: 800 });
      await page.waitForFunction(
        () => document.querySelector('.app-wrapper')!.getAttribute('data-device') === 'desktop',
      );
    },
    { width: 800, height: 700 },
  );

  const ROUTES: Array<{ path: string; page: string; en: string; zh: string; tabs?: string[] }> = [
    { path: '/home', page: 'home', en: 'Home', zh: '主页' },
    { path: '/projects', page: 'projects', en: 'Projects', zh: '项目' },
    { path: '/spiders', page: 'spiders', en: 'Spiders', zh: '爬虫' },
    {
      path: '/spiders/5f0000000000000000000001',
      page: 'spiderDetail',
      en: 'Spider Detail',
      zh: '爬虫详情',
      tabs: ['Overview', 'Files', 'Environment', 'Analytics', 'Rules', 'Config', 'Deploys', 'Tasks', 'Schedules'],
    },
    { path: '/tasks', page: 'tasks', en: 'Tasks', zh: '任务' },
    {
      path: '/tasks/5f0000000000000000000002',
      page: 'taskDetail',
      en: 'Task Detail',
      zh: '任务详情',
      tabs: ['Overview', 'Log', 'Results'],
    },
    { path: '/schedules', page: 'schedules', en: 'Schedules', zh: '定时任务' },
    { path: '/nodes', page: 'nodes', en: 'Nodes', zh: '节点' },
    {
      path: '/nodes/5f0000000000000000000003',
      page: 'nodeDetail',
      en: 'Node Detail',
      zh: '节点详情',
      tabs: ['Overview', 'Installation', 'Monitor', 'Network'],
    },
    { path: '/disclaimer', page: 'disclaimer', en: 'Disclaimer', zh: '免责声明' },
    { path: '/feedback', page: 'feedback', en: 'Feedback', zh: '反馈' },
    { path: '/users', page: 'users', en: 'Users', zh: '用户' },
    {
      path: '/setting',
      page: 'setting',
      en: 'Settings',
      zh: '设置',
      tabs: ['General', 'Notifications', 'Global Variable', 'Database', 'Password'],
    },
  ];

  for (const lang of ['en', 'zh'] as const) {
    e2eTest(`${lang}: every route is reachable with its title`, async ({ page }) => {
      await loginByApi(page, lang);
      for (const r of ROUTES) {
        await page.goto(`${env.url}${r.path}`);
        await expectTitle(page, `Crawldeck - ${r[lang]}`);
        await expect.poll(() => page.locator('.tags-view-item.active').innerText(), { timeout: 15_000 }).toBe(r[lang]);
        const view = page.locator(`.app-view[data-view="${r.path}"]`);
        await expect.poll(async () => (await view.innerText()).trim().length, { timeout: 15_000 }).toBeGreaterThan(0);
        // While a screen is still the shell's placeholder: its header, its tabs and an honest empty state
        const placeholder = view.locator(`[data-page="${r.page}"]:not(:has(.ant-table, .ant-form, .ant-result))`);
        if ((await placeholder.count()) && (await placeholder.locator('.ant-empty').count())) {
          expect(await placeholder.locator('.app-page-title').innerText()).toBe(r[lang]);
          if (r.tabs && lang === 'en' && (await placeholder.locator('.ant-tabs').count())) {
            expect(await texts(placeholder.locator('.ant-tabs-tab'))).toEqual(r.tabs);
          }
        }
      }
      // admin sees the admin-only entry; hidden routes are not in the menu
      const menu = await texts(page.locator('.sidebar-container .ant-menu-item'));
      expect(menu).toEqual(
        lang === 'en'
          ? ['Home', 'Projects', 'Spiders', 'Tasks', 'Schedules', 'Nodes', 'Users', 'Settings']
          : ['主页', '项目', '爬虫', '任务', '定时任务', '节点', '用户', '设置'],
      );
      if (lang === 'en') {
        await page.waitForTimeout(600); // let the fade-slide transition finish
        await screenshot(page, 'review-en-setting');
      }
    });
  }
});

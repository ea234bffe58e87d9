/**
 * The console cannot be turned against its users: hostile text is put into every entity a user or a node can
 * name (through the API), then every screen of the route table, the detail tabs and the charts (the node network
 * graph with its tooltip hovered) is opened in Chromium in zh and en, as the administrator and as a normal user
 * whose own username is hostile. A screen fails when a payload ran (`window.__xss`), when hostile markup reached
 * the DOM as elements or attributes (an on* handler, a javascript: URL) or when the page reported a
 * Content-Security-Policy violation (the master's policy blocks inline handlers, so an escaping bug shows as one).
 */
import { beforeAll, describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, e2eTest, expectNoCspViolations, screenshot, takeCspViolations, useE2E } from './harness.ts';
import { signIn } from './journey.ts';
import { SPIDER_TABS } from '../packages/console/src/features/spiders/spiderTabs.ts';

const env = useE2E({ master: { embeddedNode: true } });

const RUN = 'window.__xss=(window.__xss||0)+1';
/** Payloads without "/" or "\" so that they are also valid spider, file and folder names. */
const PAYLOADS = [
  `<img src=x onerror="${RUN}">`,
  `"><svg onload="${RUN}">`,
  `javascript:${RUN}`,
  `{{constructor.constructor('${RUN}')()}}`,
];
/** Tags are at most 50 characters. */
const SHORT = [
  `<img src=x onerror=__xss=1>`,
  `"><svg onload=__xss=1>`,
  `javascript:__xss=1`,
  `{{constructor.constructor('__xss=1')()}}`,
];
/** What an escaped payload looks like on screen: its own text. */
const SHOWN = '<img src=x onerror=';
const NORMAL = { username: PAYLOADS[0], password: 'normal-pass-1' };

interface Ids {
  spider: string;
  normalSpider: string;
  task: string;
  node: string;
}
let ids: Ids;

async function call<T = any>(token: string | null, method: string, route: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = token;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${env.url}/api${route}`, { method, headers, body: payload });
  const json = (await res.json()) as { data: T; error?: string };
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${json.error}`);
  return json.data;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Prints every payload (one as an error line) and emits items whose values and one key are payloads. */
const EMIT_PY = `import json, os, sys
P = json.loads(${JSON.stringify(JSON.stringify(PAYLOADS))})
for p in P:
    print(p, flush=True)
print('ERROR: ' + P[0], flush=True)
print('argv: ' + ' | '.join(sys.argv[1:]), flush=True)
with open(os.environ['CRAWLDECK_ITEMS'], 'a', encoding='utf-8') as f:
    for i, p in enumerate(P):
        f.write(json.dumps({'title': p, 'link': P[2], P[0]: 'hostile key', 'n': i}, ensure_ascii=False) + '\\n')
`;

const csvField = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Every entity a user can name, with hostile names, created as the administrator and as the normal user. */
async function seed(): Promise<Ids> {
  const admin = await call<string>(null, 'POST', '/login', { username: 'admin', password: ADMIN_PASSWORD });
  // Sign-up is closed on a fresh master; hostile usernames come in through the open sign-up form's route.
  await call(admin, 'POST', '/setting', { allow_signup: 'Y' });
  await call(null, 'PUT', '/users', NORMAL);
  for (const p of PAYLOADS.slice(1)) await call(null, 'PUT', '/users', { username: p, password: 'other-pass-1' });
  const normal = await call<string>(null, 'POST', '/login', NORMAL);

  // The master's own node, renamed and described by the administrator.
  const node = await until('the master node', async () =>
    (await call<{ _id: string; status: string }[]>(admin, 'GET', '/nodes')).find((n) => n.status === 'online'),
  );
  await call(admin, 'POST', `/nodes/${node._id}`, {
    name: PAYLOADS[0] + PAYLOADS[1],
    description: PAYLOADS[2] + PAYLOADS[3],
  });

  const projects: string[] = [];
  for (const [i, p] of PAYLOADS.entries()) {
    projects.push(
      (
        await call<{ _id: string }>(admin, 'PUT', '/projects', {
          name: `${p} project${i}`,
          description: p,
          tags: [SHORT[i]],
        })
      )._id,
    );
  }
  const spiders: string[] = [];
  for (const [i, p] of PAYLOADS.entries()) {
    const s = await call<{ _id: string }>(admin, 'PUT', '/spiders', {
      name: `${p} spider${i}`,
      display_name: p,
      cmd: 'python3 emit.py',
      col: `results_hostile_${i}`,
      is_public: true,
      project_id: projects[i],
      envs: [{ name: 'HOSTILE', value: p }],
    });
    spiders.push(s._id);
  }
  const spider = spiders[0];
  await call(admin, 'POST', `/spiders/${spider}/file`, { path: 'emit.py', content: EMIT_PY });
  for (const [i, p] of PAYLOADS.entries()) {
    await call(admin, 'PUT', `/spiders/${spider}/dir`, { path: `${p} folder${i}` });
    await call(admin, 'PUT', `/spiders/${spider}/file`, { path: `${p} file${i}.txt` });
  }
  const normalSpider = (
    await call<{ _id: string }>(normal, 'PUT', '/spiders', {
      name: `${PAYLOADS[1]} mine`,
      display_name: PAYLOADS[3],
      cmd: 'echo',
    })
  )._id;

  // A task whose parameters, log lines and result fields are hostile (one shell word per payload).
  const [task] = await call<string[]>(admin, 'PUT', '/tasks', {
    spider_id: spider,
    param: `'${PAYLOADS[0]}' '${PAYLOADS[1]}'`,
  });
  await until(
    'the hostile task to finish',
    async () => (await call<{ status: string }>(admin, 'GET', `/tasks/${task}`)).status === 'finished',
  );

  for (const [i, p] of PAYLOADS.entries()) {
    await call(admin, 'PUT', '/schedules', {
      name: `${p} schedule${i}`,
      description: p,
      cron: '0 0 0 1 1 *',
      spider_id: spiders[i],
      param: p,
      enabled: false,
    });
    await call(admin, 'PUT', '/webhooks', {
      name: `${p} hook${i}`,
      url: 'https://example.com/hook',
      events: ['task_finished'],
      enabled: false,
    });
    await call(admin, 'PUT', '/variable', { key: `HOSTILE_${i}`, value: p, remark: p });
    await call(admin, 'PUT', '/tokens', { name: `${SHORT[i]} ${i}` });
    await call(normal, 'PUT', '/tokens', { name: `${SHORT[i]} mine${i}` });
    await call(normal, 'PUT', '/feedback', { email: 'hostile@example.com', chat_account: SHORT[i], content: p });
    await call(admin, 'POST', '/insertUrl', {
      url: `https://example.com/${i}?q=${encodeURIComponent(p)}`,
      regionCode: 'US',
      title: p,
    });
  }
  const csv = ['domain,main_category,category,rank,name,description'];
  for (const [i, p] of PAYLOADS.entries())
    csv.push([`hostile${i}.example.com`, SHORT[i], SHORT[(i + 1) % 4], String(i + 1), p, p].map(csvField).join(','));
  const form = new FormData();
  form.append('file', new Blob([csv.join('\n')], { type: 'text/csv' }), 'sites.csv');
  await call(admin, 'POST', '/sites/import', form);
  return { spider, normalSpider, task, node: node._id };
}

beforeAll(async () => {
  ids = await seed();
}, 120_000);

type Role = 'admin' | 'normal';
interface Screen {
  name: string;
  path: () => string;
  /** Text that must be on the screen (the escaped payload), for these roles. */
  shows?: { text: string; roles: Role[] };
  /** Extra steps once the screen is up (switching a view, hovering a chart). */
  then?: (page: Page) => Promise<void>;
  /** Screens outside the layout (login, sign-up, not found). */
  bare?: boolean;
}

const view = (page: Page) => page.locator('.app-view:visible');
const both: Role[] = ['admin', 'normal'];
const adminOnly: Role[] = ['admin'];

/** Hovers the centre of the network graph (where the master node sits) and waits for the node's tooltip. */
async function hoverNetwork(page: Page): Promise<void> {
  const canvas = view(page).locator('[data-testid=node-network] canvas').first();
  await canvas.waitFor();
  const box = (await canvas.boundingBox())!;
  // ECharts' tooltip element; its content is HTML built by the graph's formatter
  const tip = view(page).locator('[data-testid=node-network] div[style*="z-index: 9999999"]').last();
  const shown = async () => (await tip.isVisible()) && (await tip.innerText()).trim() !== '';
  // the master is at the centre of the graph's box, a little below the canvas centre (the legend sits above it)
  for (const dy of [12, 0, 24, -8, 8, 16]) {
    await page.mouse.move(box.x + box.width / 2 + 1, box.y + box.height / 2 + dy);
    const seen = await expect
      .poll(shown, { timeout: 4000 })
      .toBe(true)
      .then(() => true)
      .catch(() => false);
    if (seen) break;
    await page.mouse.move(box.x + 5, box.y + 5);
  }
  await expect.poll(shown, { timeout: 15_000 }).toBe(true);
  expect(await injectedMarkup(page), 'hostile markup in the network tooltip').toEqual([]);
  expectNoCspViolations(page);
  // the tooltip shows the node's name as text
  expect(await tip.innerText()).toContain(PAYLOADS[0]);
}

async function hoverCharts(page: Page): Promise<void> {
  const canvases = view(page).locator('canvas');
  await canvases.first().waitFor({ timeout: 20_000 });
  for (let i = 0; i < (await canvases.count()); i++) {
    const box = await canvases.nth(i).boundingBox();
    if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  }
}

/** Screens kept as screenshots in test-output/e2e/ for a person to look at. */
const SHOTS = ['nodes-network', 'task-results', 'spider-files'];

const SETTING_TABS = ['general', 'notifications', 'globalVariable', 'database', 'password', 'tokens'];

function screens(): Screen[] {
  return [
    { name: 'home', path: () => '/home', then: hoverCharts },
    { name: 'projects', path: () => '/projects', shows: { text: SHOWN, roles: both } },
    { name: 'spiders', path: () => '/spiders', shows: { text: SHOWN, roles: both } },
    ...SPIDER_TABS.map((tab) => ({
      name: `spider-${tab}`,
      path: () => `/spiders/${ids.spider}?tab=${tab}`,
      shows: tab === 'overview' || tab === 'files' || tab === 'schedules' ? { text: SHOWN, roles: both } : undefined,
      then: tab === 'analytics' ? hoverCharts : undefined,
    })),
    { name: 'spider-own', path: () => `/spiders/${ids.normalSpider}`, shows: { text: '"><svg onload=', roles: both } },
    { name: 'tasks', path: () => '/tasks', shows: { text: SHOWN, roles: both } },
    ...['overview', 'log', 'results'].map((tab) => ({
      name: `task-${tab}`,
      path: () => `/tasks/${ids.task}?tab=${tab}`,
      shows: { text: SHOWN, roles: both },
    })),
    { name: 'schedules', path: () => '/schedules', shows: { text: SHOWN, roles: both } },
    { name: 'nodes', path: () => '/nodes', shows: { text: SHOWN, roles: both } },
    {
      name: 'nodes-network',
      path: () => '/nodes',
      then: async (page) => {
        await view(page).locator('[data-testid=nodes-view] .ant-segmented-item').nth(1).click();
        await hoverNetwork(page);
      },
    },
    ...['overview', 'installation', 'monitor', 'network', 'tasks'].map((tab) => ({
      name: `node-${tab}`,
      path: () => `/nodes/${ids.node}?tab=${tab}`,
      shows: tab === 'overview' ? { text: SHOWN, roles: both } : undefined,
      then: tab === 'network' ? hoverNetwork : tab === 'monitor' ? hoverCharts : undefined,
    })),
    { name: 'disclaimer', path: () => '/disclaimer' },
    { name: 'feedback', path: () => '/feedback', shows: { text: SHOWN, roles: adminOnly } },
    { name: 'sites', path: () => '/sites', shows: { text: SHOWN, roles: both } },
    {
      name: 'sites-urls',
      path: () => '/sites',
      then: async (page) => {
        await view(page).locator('.ant-tabs-tab').nth(1).click();
        await view(page).locator('[data-panel=collected-urls]').getByText(SHOWN).first().waitFor();
      },
    },
    { name: 'users', path: () => '/users', shows: { text: SHOWN, roles: adminOnly } },
    ...SETTING_TABS.map((tab) => ({
      name: `setting-${tab}`,
      // The hostile webhook is on the Webhooks sub-tab of Notifications.
      path: () => (tab === 'notifications' ? '/setting?tab=notifications&sub=webhooks' : `/setting?tab=${tab}`),
      shows:
        tab === 'tokens'
          ? { text: '<img src=x onerror=__xss', roles: both }
          : tab === 'notifications' || tab === 'globalVariable'
            ? { text: SHOWN, roles: adminOnly }
            : undefined,
    })),
    { name: 'not-found', path: () => '/no-such-screen', bare: true },
    { name: 'login', path: () => '/login', bare: true },
    { name: 'signup', path: () => '/signup', bare: true },
  ];
}

/** Hostile markup that became elements or attributes: inline handlers and javascript: URLs. */
async function injectedMarkup(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll('*'))) {
      for (const a of Array.from(el.attributes)) {
        const name = a.name.toLowerCase();
        const value = a.value.trim().toLowerCase();
        if (
          name.startsWith('on') ||
          (/^(href|src|action|formaction|xlink:href)$/.test(name) && value.startsWith('javascript:'))
        ) {
          found.push(`<${el.tagName.toLowerCase()} ${a.name}="${a.value.slice(0, 80)}">`);
        }
      }
    }
    return found;
  });
}

async function openScreen(page: Page, role: Role, s: Screen): Promise<void> {
  await page.goto(`${env.url}${s.path()}`);
  if (!s.bare) {
    await view(page).locator('.app-page').first().waitFor();
    await expect.poll(() => view(page).locator('.ant-spin-spinning').count(), { timeout: 15_000 }).toBe(0);
  } else {
    await page.locator('#root *').first().waitFor();
  }
  if (s.shows?.roles.includes(role)) await view(page).getByText(s.shows.text, { exact: false }).first().waitFor();
  await s.then?.(page);
}

describe('no script from user or node text', () => {
  let checked = 0;
  const list = screens();

  for (const role of ['admin', 'normal'] as const) {
    for (const lang of ['zh', 'en'] as const) {
      e2eTest(
        `${role} ${lang}: hostile names render as text on every screen`,
        async ({ page }) => {
          await signIn(page, lang, role === 'admin' ? {} : NORMAL);
          for (const s of list) {
            try {
              await openScreen(page, role, s);
            } catch (err) {
              throw new Error(`screen ${s.name} (${s.path()}) failed: ${(err as Error).message}`);
            }
            expect(
              await page.evaluate(() => (window as { __xss?: number }).__xss),
              `a payload ran on ${s.name}`,
            ).toBeUndefined();
            expect(await injectedMarkup(page), `hostile markup in the DOM of ${s.name}`).toEqual([]);
            expectNoCspViolations(page);
            if (SHOTS.includes(s.name)) await screenshot(page, `xss-${role}-${lang}-${s.name}`);
            checked++;
          }
          if (role === 'normal') {
            // the normal user's own (hostile) name is shown in the navbar as text
            await page.goto(`${env.url}/home`);
            await page.locator('.navbar').getByText(NORMAL.username).first().waitFor();
          }
          console.log(`xss ${role} ${lang}: ${PAYLOADS.length} payloads × ${list.length} screens checked`);
        },
        { timeout: 600_000 },
      );
    }
  }

  e2eTest('the OpenAPI page renders under the same policy', async ({ page }) => {
    const res = await page.goto(`${env.url}/api/openapi`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.swagger-ui .information-container').waitFor();
    await page.locator('.swagger-ui .opblock').first().waitFor();
  });

  e2eTest('the policy blocks an injected inline handler and the harness notices', async ({ page }) => {
    await page.goto(`${env.url}/login`);
    await page.locator('input#username').waitFor();
    const violations: string[] = [];
    await page.evaluate((html) => document.body.insertAdjacentHTML('beforeend', html), PAYLOADS[0]);
    // Chromium's own console error and the page's securitypolicyviolation event both arrive
    await expect
      .poll(() => {
        violations.push(...takeCspViolations(page));
        return (
          /Content Security Policy/.test(violations.join('\n')) &&
          /securitypolicyviolation: script-src-attr/.test(violations.join('\n'))
        );
      })
      .toBe(true);
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    console.log(
      `xss total: ${PAYLOADS.length} payloads × ${list.length} screens × 2 languages × 2 roles = ${checked} screen visits`,
    );
  });
});

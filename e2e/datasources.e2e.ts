/**
 * Results data sources, as an administrator sets them up: Settings → Database → add a data source (a refused
 * connection first shows 'Change data source failed' with the driver's message), point a spider at it on its
 * overview, run it, and see its results on the task's Results tab, read from the target database. zh with
 * PostgreSQL, en with MariaDB. Screenshots in test-output/screens/.
 */

import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { e2eTest, useE2E } from './harness.ts';
import { shot, signIn } from './journey.ts';

const PG_ADMIN_URL = process.env.CRAWLDECK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const env = useE2E({ master: { embeddedNode: true } });

const screen = (page: Page, name: string) => shot(page, name, { settleMs: 300 });

interface Target {
  type: 'postgres' | 'mysql';
  port: number;
  username: string;
  database: string;
  count(table: string): Promise<number>;
  drop(): Promise<void>;
}

async function pgDatabase(): Promise<Target> {
  const database = `e2e_ds_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${database}`);
  return {
    type: 'postgres',
    port: 5432,
    username: 'postgres',
    database,
    async count(table) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const r = await c.query(`SELECT COUNT(*)::int AS n FROM ${table}`);
      await c.end();
      return r.rows[0].n as number;
    },
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function mariaDatabase(): Promise<Target> {
  const database = `e2e_ds_${process.pid}_${Date.now()}`;
  const conn = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' });
  await conn.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
  return {
    type: 'mysql',
    port: 3306,
    username: 'root',
    database,
    async count(table) {
      const [rows] = await conn.query(`SELECT COUNT(*) AS n FROM ${database}.${table}`);
      return Number((rows as { n: number }[])[0].n);
    },
    async drop() {
      await conn.query(`DROP DATABASE IF EXISTS ${database}`);
      await conn.end();
    },
  };
}

const TEXT = {
  zh: { tab: '数据库', failed: '更改数据源失败', results: '结果', builtin: '内置存储' },
  en: { tab: 'Database', failed: 'Change data source failed', results: 'Results', builtin: 'Built-in store' },
};

const ITEMS_CMD = `/usr/bin/python3 -c "import os,json;f=open(os.environ['CRAWLDECK_ITEMS'],'a');[f.write(json.dumps({'title':'标题 %d'%i,'n':i,'tags':['a',i]})+'\\n') for i in range(25)]"`;

async function api(token: string, method: string, route: string, body?: unknown) {
  const res = await fetch(`${env.url}/api${route}`, {
    method,
    headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as { data: any; total?: number };
}

describe('results data sources', () => {
  for (const lang of ['zh', 'en'] as const) {
    e2eTest(
      `${lang}: add a data source, point a spider at it, see its results`,
      async ({ page }) => {
        const L = TEXT[lang];
        const target = lang === 'zh' ? await pgDatabase() : await mariaDatabase();
        try {
          const token = await signIn(page, lang);
          const name = `e2e-${target.type}-${lang}`;

          // Settings → Database → Add: a refused connection first, then the real one.
          await page.goto(`${env.url}/setting`);
          await page.locator('[data-tab="database"]').click();
          await page.locator('[data-testid=ds-add]').click();
          const form = page.locator('[data-testid=ds-form]');
          await form.locator('[data-testid=ds-name]').fill(name);
          if (target.type === 'mysql') {
            await form.locator('[data-testid=ds-type]').click();
            await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: 'MySQL' }).click();
            await expect.poll(() => form.locator('input#port').inputValue()).toBe('3306');
          }
          await form.locator('input#port').fill('1');
          await form.locator('[data-testid=ds-database]').fill(target.database);
          await form.locator('[data-testid=ds-username]').fill(target.username);
          await page.locator('[data-testid=ds-test]').click();
          const failed = page.locator('[data-testid=ds-test-failed]');
          await failed.waitFor();
          expect(await failed.innerText()).toContain(L.failed);
          expect(await failed.innerText()).toContain('ECONNREFUSED');
          await screen(page, `datasource-refused-${lang}`);
          await form.locator('input#port').fill(String(target.port));
          await page.locator('[data-testid=ds-test]').click();
          await page.locator('[data-testid=ds-test-ok]').waitFor();
          await page.locator('.ant-modal-wrap:visible .ant-modal-footer .ant-btn-primary').click();
          const row = page.locator('[data-testid=ds-table] .ant-table-row', { hasText: name });
          await row.waitFor();
          expect(await page.locator('[data-testid=ds-table]').innerText()).toContain(L.builtin);
          await screen(page, `datasource-list-${lang}`);

          // The spider's overview: choose the data source and a table.
          const spider = await api(token, 'PUT', '/spiders', {
            name: `ds-spider-${lang}`,
            cmd: ITEMS_CMD,
            type: 'customized',
          });
          await page.goto(`${env.url}/spiders/${spider.data._id}`);
          const picker = page.locator('[data-testid=ds-picker]');
          await picker.waitFor();
          await picker.locator('[data-testid=ds-picker-source]').click();
          await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: name }).click();
          await picker.locator('[data-testid=ds-picker-table]').fill('e2e_items');
          await picker.locator('[data-testid=ds-picker-save]').click();
          await expect
            .poll(async () => (await api(token, 'GET', `/spiders/${spider.data._id}/data-source`)).data.table)
            .toBe('e2e_items');
          await screen(page, `datasource-picker-${lang}`);

          // Run it; the items land in the target and the Results tab shows them.
          const [taskId] = (await api(token, 'PUT', '/tasks', { spider_id: spider.data._id, run_type: 'random' }))
            .data as string[];
          await expect
            .poll(async () => (await api(token, 'GET', `/tasks/${taskId}`)).data.status, { timeout: 60_000 })
            .toBe('finished');
          expect(await target.count('e2e_items')).toBe(25);
          await page.goto(`${env.url}/tasks/${taskId}`);
          await page.locator('.app-view:visible [data-testid=tab-results]').click();
          const results = page.locator('.app-view:visible [data-testid=results-panel]');
          await expect.poll(() => results.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(10);
          expect(await results.locator('.ant-table-tbody').innerText()).toContain('标题 1');
          await screen(page, `datasource-results-${lang}`);
        } finally {
          await target.drop();
        }
      },
      { timeout: 150_000 },
    );
  }
});

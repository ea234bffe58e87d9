import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { newId } from '@crawldeck/shared';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from '../../server/test/harness.ts';
import { insertRow, insertRows } from '../../server/test/seed-rows.ts';
import { runCli, runCliFirstLine } from './cli.helpers.ts';

/**
 * `crawldeck results` writes every item of a large task in each format, beyond the rows a list page counts, and
 * a reader that stops after the first line ends it quietly.
 */
let m: TestMaster;
let home: string;
let taskId: string;
const ROWS = 100_000;
const cli = (args: string[]) => runCli(home, args);
/** Item i as the spider yielded it; a character of three UTF-8 bytes so some fall across the chunks of a stream. */
const item = (i: number) => ({ n: i, title: `item ${i} ✓`, tags: i % 7 ? null : ['a', 'b,c'] });

beforeAll(async () => {
  m = await startTestMaster();
  home = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-cli-results-'));
  const db = m.master.store.db as Kysely<any>;
  const adminId = (await m.api('GET', '/me')).body.data._id as string;
  const spiderId = newId();
  await insertRow(db, 'spiders', { id: spiderId, owner_id: adminId, is_public: 0 });
  taskId = newId();
  const T = Date.now();
  await insertRow(db, 'tasks', {
    id: taskId,
    spider_id: spiderId,
    node_id: '0'.repeat(24),
    status: 'finished',
    run_type: 'random',
    create_ts: T,
  });
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    collection: 'results_cli',
    task_id: taskId,
    spider_id: spiderId,
    data: JSON.stringify(item(i)),
    create_ts: T,
  }));
  await insertRows(m.master.store.db as Kysely<any>, 'results', rows);
  const login = await runCli(home, ['login', '--url', m.url, '-u', 'admin', '--password-stdin'], {
    input: `${ADMIN_PASSWORD}\n`,
  });
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await m?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('crawldeck results of a 100,000-item task', () => {
  it('--format json writes one array of every item, an item a line', async () => {
    const r = await cli(['results', taskId, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('[');
    expect(lines[1]).toBe(`  ${JSON.stringify(item(0))},`);
    const parsed = JSON.parse(r.stdout) as ReturnType<typeof item>[];
    expect(parsed).toHaveLength(ROWS);
    expect(parsed).toEqual(Array.from({ length: ROWS }, (_, i) => item(i)));
  });

  it('--format jsonl writes one object a line, every item; csv a header and every item', async () => {
    const jsonl = await cli(['results', taskId, '--format', 'jsonl']);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    const lines = jsonl.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(ROWS);
    expect(lines[ROWS - 1]).toBe(JSON.stringify(item(ROWS - 1)));
    expect(lines.map((l) => JSON.parse(l) as { n: number }).every((x, i) => x.n === i)).toBe(true);

    const csv = await cli(['results', taskId, '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const records = csv.stdout.trimEnd().split('\n');
    expect(records).toHaveLength(ROWS + 1);
    expect(records[0]).toBe('n,title,tags');
    expect(records[ROWS]).toBe(`${ROWS - 1},item ${ROWS - 1} ✓,`);
  });

  it('a reader that closes after the first line ends each format quietly with exit code 0', async () => {
    for (const format of ['json', 'jsonl', 'csv']) {
      const r = await runCliFirstLine(home, ['results', taskId, '--format', format]);
      expect({ format, code: r.code, stderr: r.stderr }).toEqual({ format, code: 0, stderr: '' });
      expect(r.stdout).toBe({ json: '[\n', jsonl: `${JSON.stringify(item(0))}\n`, csv: 'n,title,tags\n' }[format]);
    }
  });

  it('refuses a format or option it does not write, and names an unknown task, without a stack trace', async () => {
    const bad = await cli(['results', taskId, '--format', 'xml']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/argument 'xml' is invalid. Allowed choices are json, jsonl, csv/);
    const bom = await cli(['results', taskId, '--format', 'json', '--bom']);
    expect(bom.code).toBe(1);
    expect(bom.stderr).toBe('error: --bom only applies to --format csv\n');
    const missing = await cli(['results', newId(), '--format', 'json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: .*not found/i);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    expect(missing.stdout).toBe('');
  });

  it('says in words when the task id, the token or the master is wrong', async () => {
    const notId = await cli(['results', 'latest']);
    expect(notId).toMatchObject({ code: 1, stdout: '' });
    expect(notId.stderr).toBe(
      'error: "latest" is not a task id (24 hexadecimal characters, as `crawldeck tasks` lists them)\n',
    );
    const revoked = await runCli(home, ['results', taskId], { env: { CRAWLDECK_TOKEN: 'not-a-valid-token' } });
    expect(revoked).toMatchObject({ code: 1, stdout: '' });
    expect(revoked.stderr).toMatch(
      /^error: unauthorized: .*; the kept token is no longer valid: run `crawldeck login` again\n$/,
    );
    const away = await runCli(home, ['--json', 'results', taskId], { env: { CRAWLDECK_URL: 'http://127.0.0.1:1' } });
    expect(away).toMatchObject({ code: 1, stdout: '' });
    expect(away.stderr).toMatch(/^error: cannot reach the master at http:\/\/127\.0\.0\.1:1: .+\n$/);
  });
});

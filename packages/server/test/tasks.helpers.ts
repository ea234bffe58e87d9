import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestMaster } from './harness.ts';

/** Creates a customized spider through the real API and writes its files. */
export async function makeSpider(
  m: TestMaster,
  name: string,
  cmd: string,
  files: Record<string, string> = {},
  extra: Record<string, unknown> = {},
  token?: string,
): Promise<string> {
  const r = await m.api('PUT', '/spiders', { token, body: { name, cmd, type: 'customized', ...extra } });
  if (r.status !== 200) throw new Error(`create spider: ${r.status} ${r.body.error}`);
  const id = r.body.data._id as string;
  for (const [path, content] of Object.entries(files)) {
    const f = await m.api('POST', `/spiders/${id}/file`, { token, body: { path, content } });
    if (f.status !== 200) throw new Error(`write ${path}: ${f.status} ${f.body.error}`);
  }
  return id;
}

export async function runSpider(
  m: TestMaster,
  spiderId: string,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<string[]> {
  const r = await m.api('PUT', '/tasks', { token, body: { spider_id: spiderId, run_type: 'random', ...body } });
  if (r.status !== 200) throw new Error(`run: ${r.status} ${r.body.error}`);
  return r.body.data as string[];
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  stepMs = 50,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export async function waitTask(m: TestMaster, id: string, statuses: string[], timeoutMs = 20_000) {
  return waitFor(
    `task ${id} to be ${statuses.join('|')}`,
    async () => {
      const r = await m.api('GET', `/tasks/${id}`);
      return statuses.includes(r.body.data?.status) ? r.body.data : undefined;
    },
    timeoutMs,
  );
}

export async function waitNodes(m: TestMaster, count: number, timeoutMs = 20_000) {
  return waitFor(
    `${count} online nodes`,
    async () => {
      const r = await m.api('GET', '/nodes');
      const online = (r.body.data as { status: string }[]).filter((n) => n.status === 'online');
      return online.length >= count ? r.body.data : undefined;
    },
    timeoutMs,
  );
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function allLog(
  m: TestMaster,
  taskId: string,
): Promise<{ line_no: number; msg: string; is_error: boolean }[]> {
  const r = await m.api('GET', `/tasks/${taskId}/log`, { query: { page_size: 100000 } });
  expect(r.status).toBe(200);
  return r.body.data;
}

/**
 * A gate file's path a test creates to let a waiting spider go on. Tasks run with a /tmp of their own, so gates live
 * where a sandboxed task can read them (the host's files are visible to it, read-only).
 */
export function gatePath(name: string): string {
  mkdirSync(GATES, { recursive: true, mode: 0o755 });
  return path.join(GATES, `${name}-${process.pid}-${randomBytes(6).toString('hex')}`);
}
const GATES = '/var/tmp/crawldeck-test-gates';

/** Host pids of the processes whose command line holds `token` (a task's own pids are those of its namespace). */
export function pidsWithArg(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(token)) found.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

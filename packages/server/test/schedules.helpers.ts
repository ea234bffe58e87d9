import { expect } from 'vitest';
import type { TestMaster } from './harness.ts';
import { schedulerOf } from '../src/features/schedules/schedules.routes.ts';

// What the schedule tests share: creating spiders and schedules through the API, reading fire records and the
// tasks they made, and waiting for a condition or for the fires in progress.

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
  stepMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(stepMs);
  }
}

/** Waits for the fires in progress on this master (the disable call has already dropped the schedule's timer). */
export async function settled(t: TestMaster): Promise<void> {
  await schedulerOf(t.master.ctx)!.scheduler.settled();
}

/** Creates spiders and schedules through the API of the given master, or of the file's own master by default. */
export function scheduleApi(own: () => TestMaster) {
  async function spider(name: string, extra: Record<string, unknown> = {}, t: TestMaster = own()): Promise<string> {
    const r = await t.api('PUT', '/spiders', { body: { name, cmd: 'echo ok', ...extra } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data._id;
  }
  async function schedule(body: Record<string, unknown>, t: TestMaster = own()) {
    const r = await t.api('PUT', '/schedules', { body: { name: 'sched', timezone: 'UTC', ...body } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data;
  }
  return { spider, schedule };
}

export async function fires(t: TestMaster, scheduleId: string) {
  return t.master.store.db
    .selectFrom('schedule_fires')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .orderBy('fire_ts')
    .execute();
}

export async function tasksOf(t: TestMaster, scheduleId: string) {
  return t.master.store.db
    .selectFrom('tasks')
    .select(['id', 'schedule_id', 'status', 'parent_id', 'create_ts'])
    .where('schedule_id', '=', scheduleId)
    .execute();
}

/** Every fire created exactly one task, and every task of the schedule belongs to exactly one fire. */
export async function expectOneTaskPerFire(t: TestMaster, scheduleId: string) {
  const fs = await fires(t, scheduleId);
  const ts = fs.map((f) => Number(f.fire_ts));
  expect(new Set(ts).size).toBe(ts.length);
  const fireTaskIds = fs.flatMap((f) => JSON.parse(f.task_ids) as string[]);
  for (const f of fs) expect(JSON.parse(f.task_ids), `fire ${f.fire_ts} ${f.error}`).toHaveLength(1);
  const tasks = (await tasksOf(t, scheduleId)).filter((x) => !x.parent_id);
  expect(tasks.map((x) => x.id).sort()).toEqual([...fireTaskIds].sort());
  return fs;
}

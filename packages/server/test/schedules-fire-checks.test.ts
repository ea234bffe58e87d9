import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorText } from '@crawldeck/shared';
import { ENGINE, startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false });
});
afterAll(async () => {
  await m?.close();
});

async function spider(name: string, cmd: string): Promise<string> {
  const r = await m.api('PUT', '/spiders', { body: { name, cmd, type: 'customized' } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data._id;
}

const tasksOf = (scheduleId: string) =>
  m.master.store.db.selectFrom('tasks').select('id').where('schedule_id', '=', scheduleId).execute();
const firesOf = (scheduleId: string) =>
  m.master.store.db
    .selectFrom('schedule_fires')
    .select(['task_ids', 'error'])
    .where('schedule_id', '=', scheduleId)
    .execute();

describe('a schedule that could never create a task', () => {
  it('is refused when saved: a Scrapy command without a spider name, on create and on edit', async () => {
    const sid = await spider('scrapy-project', 'scrapy crawl');
    const body = { name: 'nightly', cron: '0 0 3 * * *', timezone: 'UTC', spider_id: sid };
    const refused = await m.api('PUT', '/schedules', { body });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'schedule.scrapy_name_required',
      error: errorText('schedule.scrapy_name_required'),
    });

    const saved = await m.api('PUT', '/schedules', { body: { ...body, param: 'quotes -a tag=books' } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const edit = await m.api('POST', `/schedules/${saved.body.data._id}`, { body: { param: '-a tag=books' } });
    expect(edit.status).toBe(400);
    expect(edit.body).toMatchObject({ code: 'schedule.scrapy_name_required' });
  });

  it('whose spider lost its spider name after saving shows the reason in error at its first fire', async () => {
    const sid = await spider('lost-name', 'scrapy crawl quotes');
    const s = await m.api('PUT', '/schedules', {
      body: { name: 'lost', cron: '0 0 3 * * *', timezone: 'UTC', spider_id: sid },
    });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    expect((await m.api('POST', `/spiders/${sid}`, { body: { cmd: 'scrapy crawl' } })).status).toBe(200);
    const run = await m.api('POST', `/schedules/${s.body.data._id}/run`);
    expect(run.status).toBe(400);
    expect(run.body.error).toBe(errorText('schedule.scrapy_name_required'));
    expect(await tasksOf(s.body.data._id)).toEqual([]);
    const after = (await m.api('GET', `/schedules/${s.body.data._id}`)).body.data;
    expect(after).toMatchObject({ status: 'error', error: errorText('schedule.scrapy_name_required') });
  });
});

describe("a schedule's fire", () => {
  it('records its tasks in the transaction that creates them: a failure between the two leaves neither', async () => {
    const sid = await spider('fire-tx', 'echo ok');
    const s = await m.api('PUT', '/schedules', {
      body: { name: 'tx', cron: '0 0 3 * * *', timezone: 'UTC', spider_id: sid, enabled: false },
    });
    const scheduleId = s.body.data._id as string;
    // The store refuses the fire's record of its tasks, as a crash right after the tasks were inserted would.
    const db = m.master.store.db;
    if (ENGINE === 'postgres') {
      await sql`CREATE FUNCTION refuse_fire_tasks() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION 'fire record refused'; END $$ LANGUAGE plpgsql`.execute(db);
      await sql`CREATE TRIGGER refuse_fire_tasks BEFORE UPDATE OF task_ids ON schedule_fires
        FOR EACH ROW EXECUTE FUNCTION refuse_fire_tasks()`.execute(db);
    } else {
      await sql`CREATE TRIGGER refuse_fire_tasks BEFORE UPDATE OF task_ids ON schedule_fires
        BEGIN SELECT RAISE(ABORT, 'fire record refused'); END`.execute(db);
    }
    try {
      await m.api('POST', `/schedules/${scheduleId}/run`);
    } finally {
      await sql`DROP TRIGGER refuse_fire_tasks${sql.raw(ENGINE === 'postgres' ? ' ON schedule_fires' : '')}`.execute(
        db,
      );
    }
    const [fire] = await firesOf(scheduleId);
    console.log(`fire with its record refused: tasks ${(await tasksOf(scheduleId)).length}, record ${fire.task_ids}`);
    expect(await tasksOf(scheduleId)).toEqual([]);
    expect(JSON.parse(fire.task_ids)).toEqual([]);
    expect(fire.error).toMatch(/fire record refused/);

    // Without the failure, record and tasks are the same.
    const next = await m.api('POST', `/schedules/${scheduleId}/run`);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    const recorded = (await firesOf(scheduleId)).flatMap((f) => JSON.parse(f.task_ids) as string[]);
    expect(recorded.sort()).toEqual((await tasksOf(scheduleId)).map((t) => t.id).sort());
    expect(recorded).toHaveLength(1);
  });
});

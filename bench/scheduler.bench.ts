/**
 * Scheduler fire jitter (target: a fire's task is stored less than 100 ms after its planned time).
 * Run: `node --import tsx bench/scheduler.bench.ts`
 * (BENCH_PG=1 also runs on PostgreSQL at CRAWLDECK_TEST_PG_URL).
 *
 * A master with its embedded node (so the fired tasks really run and load the process), SCHEDULES schedules
 * firing every second (plus one every 2 s) for SECONDS seconds. For every fire it reports:
 *  - claim lag: schedule_fires.create_ts − fire time (timer wake-up + reading the schedule + the unique insert);
 *  - task lag: tasks.create_ts − fire time (the fire's task is in the store, pending for dispatch).
 * p50 / p99 / max in ms over all fires.
 */
import { pct } from './fleet-support.ts';
import { api, withMaster } from './support.ts';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);

async function bench(engine: 'sqlite' | 'postgres'): Promise<void> {
  const options = { engine, scratch: 'crawldeck-bench-sched', embeddedNode: true, logLevel: 'error' } as const;
  await withMaster(options, async (m, token) => {
    const spider = (await api(m, token, 'PUT', '/spiders', { name: 'bench-sched', cmd: 'echo tick' })).data._id;
    const ids: string[] = [];
    for (let i = 0; i < SCHEDULES; i++) {
      ids.push(
        (
          await api(m, token, 'PUT', '/schedules', {
            name: `s${i}`,
            cron: '* * * * * *',
            spider_id: spider,
            timezone: 'UTC',
          })
        ).data._id,
      );
    }
    ids.push(
      (
        await api(m, token, 'PUT', '/schedules', {
          name: 'every-2',
          cron: '*/2 * * * * *',
          spider_id: spider,
          timezone: 'UTC',
        })
      ).data._id,
    );
    const start = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    for (const id of ids) await api(m, token, 'POST', `/schedules/${id}/disable`);
    await new Promise((r) => setTimeout(r, 500));

    const db = m.store.db;
    const fires = await db
      .selectFrom('schedule_fires')
      .selectAll()
      .where('schedule_id', 'in', ids)
      .where('fire_ts', '>', start)
      .execute();
    const claim = fires.map((f) => Number(f.create_ts) - Number(f.fire_ts));
    const taskIds = fires.flatMap((f) => JSON.parse(f.task_ids) as string[]);
    const tasks = taskIds.length
      ? await db.selectFrom('tasks').select(['id', 'create_ts', 'schedule_id']).where('id', 'in', taskIds).execute()
      : [];
    const fireOf = new Map(
      fires.flatMap((f) => (JSON.parse(f.task_ids) as string[]).map((t) => [t, Number(f.fire_ts)] as const)),
    );
    const taskLag = tasks.map((t) => Number(t.create_ts) - fireOf.get(t.id)!);
    const expected = SCHEDULES * SECONDS + Math.floor(SECONDS / 2);
    const dupes = fires.length - new Set(fires.map((f) => `${f.schedule_id}:${f.fire_ts}`)).size;
    const fmt = (xs: number[]) => `p50 ${pct(xs, 50)} ms, p99 ${pct(xs, 99)} ms, max ${Math.max(...xs)} ms`;
    console.log(
      `[${engine}] ${SCHEDULES + 1} schedules, ${SECONDS} s: ${fires.length} fires (≈${expected} expected), ${dupes} duplicates, ${tasks.length} tasks`,
    );
    console.log(`[${engine}]   claim lag (fire recorded):   ${fmt(claim)}`);
    console.log(`[${engine}]   task lag  (task in store):   ${fmt(taskLag)}`);
  });
}

await bench('sqlite');
if (process.env.BENCH_PG === '1') await bench('postgres');

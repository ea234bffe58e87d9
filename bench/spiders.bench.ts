/**
 * Spider list and file tree latency. Run: `node --import tsx bench/spiders.bench.ts`
 * (BENCH_PG=1 also runs on PostgreSQL at CRAWLDECK_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres).
 * Inserts 10k spiders (over 3 owners, half public, 20 projects) and one spider with 5k files in 250 folders, then
 * times GET /api/spiders?page_num=1&page_size=99999999 (as admin and as a normal user) and GET /file/tree over 20 runs each.
 */
import os from 'node:os';
import { newId } from '@crawldeck/shared';
import type { RunningMaster } from '../packages/server/src/master.ts';
import { replaceFiles } from '../packages/server/src/features/spiders/files.store.ts';
import { pct } from './fleet-support.ts';
import { addUser, withMaster } from './support.ts';

const SPIDERS = 10_000;
const FILES = 5_000;
const RUNS = 20;

async function call(m: RunningMaster, token: string, route: string): Promise<{ ms: number; bytes: number; body: any }> {
  const t0 = performance.now();
  const res = await fetch(m.url + route, { headers: { authorization: token } });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${route}: ${res.status} ${text.slice(0, 200)}`);
  return { ms, bytes: text.length, body: JSON.parse(text) };
}

async function timed(m: RunningMaster, token: string, route: string) {
  for (let i = 0; i < 2; i++) await call(m, token, route); // warm-up
  const times: number[] = [];
  let last: Awaited<ReturnType<typeof call>> | undefined;
  for (let i = 0; i < RUNS; i++) {
    last = await call(m, token, route);
    times.push(last.ms);
  }
  return { p50: pct(times, 50), p95: pct(times, 95), bytes: last!.bytes, body: last!.body };
}

/** A fixed CPU loop: compare with ≈80 ms on an idle core to read the other numbers on a busy machine. */
function calibrate(): number {
  const t = performance.now();
  let x = 0;
  for (let i = 0; i < 1e8; i++) x += i;
  if (x < 0) console.log(x);
  return performance.now() - t;
}

async function run(engine: 'sqlite' | 'postgres'): Promise<void> {
  await withMaster({ engine, scratch: 'crawldeck-bench', embeddedNode: false }, async (m, adminToken) => {
    const db = m.store.db;
    // Three owners: the administrator and two normal users, the first of whom lists the spiders as a normal user.
    const { token: userToken } = await addUser(m, adminToken, 'bench1', 'bench-pass');
    await addUser(m, adminToken, 'bench2', 'bench-pass');
    const users = await db.selectFrom('users').select(['id', 'username']).orderBy('username').execute();
    const now = Date.now();
    const projects = Array.from({ length: 20 }, (_, i) => ({
      id: newId(now),
      name: `project-${i}`,
      description: '',
      owner_id: users[0].id,
      create_ts: now,
      update_ts: now,
    }));
    await db.insertInto('projects').values(projects).execute();

    let t0 = performance.now();
    const rows = Array.from({ length: SPIDERS }, (_, i) => ({
      id: newId(now - i * 1000),
      name: `spider-${String(i).padStart(5, '0')}`,
      display_name: `Spider number ${i}`,
      type: (i % 3 ? 'customized' : 'configurable') as 'customized' | 'configurable',
      cmd: 'python main.py',
      col: `results_spider_${i}`,
      src: '',
      project_id: i % 4 ? projects[i % projects.length].id : null,
      is_public: i % 2,
      owner_id: users[i % users.length].id,
      is_scrapy: 0,
      is_dedup: 0,
      dedup_field: '',
      dedup_method: 'ignore' as const,
      envs: JSON.stringify([{ name: 'A', value: String(i) }]),
      git_url: '',
      git_branch: '',
      git_username: '',
      git_password_enc: '',
      git_auto_sync: 0,
      config: '{}',
      retries: 0,
      create_ts: now - i * 1000,
      update_ts: now - i * 1000,
    }));
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500)
        await trx
          .insertInto('spiders')
          .values(rows.slice(i, i + 500))
          .execute();
    });
    const insertSpidersMs = performance.now() - t0;

    // Context for the numbers: the store alone (one SELECT of every row), and how busy the CPU is.
    const rawTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await db.selectFrom('spiders').selectAll().execute();
      rawTimes.push(performance.now() - t);
    }
    const rawSelect = pct(rawTimes, 50);
    const route = '/api/spiders?page_num=1&page_size=99999999';
    const asAdmin = await timed(m, adminToken, route);
    if (asAdmin.body.total !== SPIDERS || asAdmin.body.data.list.length !== SPIDERS)
      throw new Error('admin did not get every spider');
    const asUser = await timed(m, userToken, route);
    const page = await timed(
      m,
      adminToken,
      '/api/spiders?page_num=3&page_size=10&keyword=spider-0&sort_key=name&sort_direction=asc',
    );

    const target = rows[0].id;
    const files = Array.from({ length: FILES }, (_, i) => ({
      path: `pkg${i % 250}/sub${i % 5}/file_${i}.py`,
      content: Buffer.from(`# file ${i}\nprint(${i})\n`),
    }));
    t0 = performance.now();
    await replaceFiles(db, target, files);
    const replaceMs = performance.now() - t0;
    const tree = await timed(m, adminToken, `/api/spiders/${target}/file/tree`);
    const rootDir = await timed(m, adminToken, `/api/spiders/${target}/dir?path=`);
    const projectList = await timed(m, adminToken, '/api/projects');

    const f = (n: number) => n.toFixed(1).padStart(7);
    console.log(`\n== ${engine} (${SPIDERS} spiders, ${FILES}-file spider, ${RUNS} runs after 2 warm-ups; ms) ==`);
    console.log(
      `context: load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs; CPU calibration ${f(calibrate())} ms (≈80 ms on an idle core); raw SELECT * of ${SPIDERS} spiders p50 ${f(rawSelect)} ms`,
    );
    console.log(
      `setup: insert ${SPIDERS} spiders ${f(insertSpidersMs)} ms, replaceFiles(${FILES} files) ${f(replaceMs)} ms`,
    );
    console.log(
      `GET /spiders?page_size=99999999 as admin   p50 ${f(asAdmin.p50)}  p95 ${f(asAdmin.p95)}  (${asAdmin.body.total} rows, ${(asAdmin.bytes / 1024 / 1024).toFixed(1)} MiB)`,
    );
    console.log(
      `GET /spiders?page_size=99999999 as normal  p50 ${f(asUser.p50)}  p95 ${f(asUser.p95)}  (${asUser.body.total} rows visible)`,
    );
    console.log(`GET /spiders keyword+sort, page of 10      p50 ${f(page.p50)}  p95 ${f(page.p95)}`);
    console.log(
      `GET /spiders/{id}/file/tree (${FILES} files)   p50 ${f(tree.p50)}  p95 ${f(tree.p95)}  (${(tree.bytes / 1024).toFixed(0)} KiB)`,
    );
    console.log(`GET /spiders/{id}/dir?path= (root)         p50 ${f(rootDir.p50)}  p95 ${f(rootDir.p95)}`);
    console.log(`GET /projects (20 projects, 7.5k spiders)  p50 ${f(projectList.p50)}  p95 ${f(projectList.p95)}`);
  });
}

await run('sqlite');
if (process.env.BENCH_PG === '1') await run('postgres');

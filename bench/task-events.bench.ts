/**
 * Task events for many consoles: what the console stream (GET /api/events) costs the master while tasks run at
 * BENCH_TASKS_PER_HOUR (default 100 000, ≈28/s), with BENCH_CONSOLES consoles connected (default 20: half of them
 * the admin, half normal users who read the spider because it is public, so the spider policy is asked). A master
 * in its own process, BENCH_NODES simulated nodes (default 50) that start and finish each assigned task at once,
 * no heartbeats (the fleet benchmark measures those). For BENCH_LOAD_SECONDS (default 20) it reports master CPU and
 * the events/s and bytes/s each console receives; the same load with no console connected, before and after, is
 * the baseline of the same run (their mean), so the difference is what the consoles cost.
 * With BENCH_PG=1 the store is PostgreSQL (CRAWLDECK_TEST_PG_URL). Ports from BENCH_PORT (41100) up.
 * Run: `node --import tsx bench/task-events.bench.ts`.
 */
import { api, connectFleet, ConsoleSubscriber, cpuSeconds, PG, sleep, startMasterProcess } from './fleet-support.ts';
import type { Master } from './fleet-support.ts';

const CONSOLES = Number(process.env.BENCH_CONSOLES ?? 20);
const NODES = Number(process.env.BENCH_NODES ?? 50);
const LOAD_S = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const TASKS_PER_HOUR = Number(process.env.BENCH_TASKS_PER_HOUR ?? 100_000);

/** Creates tasks at the hourly rate for LOAD_S; master CPU % over the window and the tasks created. */
async function load(m: Master, spiderId: string) {
  const rate = TASKS_PER_HOUR / 3600;
  let created = 0;
  let inFlight = 0;
  const cpu0 = cpuSeconds(m.proc.pid!);
  const t0 = performance.now();
  while (performance.now() - t0 < LOAD_S * 1000) {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate);
    while (created < due && inFlight < 32) {
      created++;
      inFlight++;
      void api(m, 'PUT', '/tasks', { spider_id: spiderId, run_type: 'random' }).finally(() => inFlight--);
    }
    await sleep(20);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpuPct = ((cpuSeconds(m.proc.pid!) - cpu0) / seconds) * 100;
  while (inFlight) await sleep(20);
  return { created, seconds, cpuPct };
}

async function signIn(m: Master, username: string): Promise<string> {
  await api(m, 'PUT', '/users-add', { username, password: 'bench-user-pass', role: 'normal' });
  const r = await fetch(m.url + '/api/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'bench-user-pass' }),
  });
  return ((await r.json()) as { data: string }).data;
}

async function main(): Promise<void> {
  const port = Number(process.env.BENCH_PORT ?? 41100);
  const m = await startMasterProcess(port);
  const engine = PG ? 'postgres' : 'sqlite';
  try {
    const fleet = await connectFleet(m, NODES);
    const sid = (
      await api(m, 'PUT', '/spiders', { name: 'events-load', cmd: 'echo sim', type: 'customized', is_public: true })
    ).data._id as string;
    const before = await load(m, sid);
    const tokens = [m.token];
    for (let i = 0; i < Math.floor(CONSOLES / 2); i++) tokens.push(await signIn(m, `bench-viewer-${i}`));
    const consoles = await Promise.all(
      Array.from({ length: CONSOLES }, (_, i) =>
        ConsoleSubscriber.open({ ...m, token: tokens[i % 2 ? 1 + (i >> 1) : 0] }),
      ),
    );
    await sleep(2000);
    for (const c of consoles) c.reset();
    const busy = await load(m, sid);
    const events = consoles.reduce((a, c) => a + c.events, 0) / consoles.length / busy.seconds;
    const bytes = consoles.reduce((a, c) => a + c.bytes, 0) / consoles.length / busy.seconds;
    for (const c of consoles) c.close();
    await sleep(2000);
    const after = await load(m, sid);
    const quiet = { cpuPct: (before.cpuPct + after.cpuPct) / 2 };
    const perConsole = (busy.cpuPct - quiet.cpuPct) / CONSOLES;
    console.log(
      `${engine} | ${NODES} nodes | ${(busy.created / busy.seconds).toFixed(1)} tasks/s | master CPU without consoles ${quiet.cpuPct.toFixed(1)} % (${before.cpuPct.toFixed(1)} before, ${after.cpuPct.toFixed(1)} after), with ${CONSOLES} consoles ${busy.cpuPct.toFixed(1)} % (${perConsole.toFixed(2)} % per console) | per console ${events.toFixed(1)} ev/s ${(bytes / 1024).toFixed(1)} kB/s`,
    );
    for (const n of fleet) n.close();
  } finally {
    await m.stop();
  }
}

await main();

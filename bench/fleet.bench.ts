/**
 * Fleet benchmark: a master in its own process (`crawldeck start`, no embedded node) and, in this process, a fleet
 * of simulated nodes speaking the real node protocol (packages/server/test/support/sim-node.ts), each beating every
 * 2 s. For each fleet size in BENCH_FLEETS (default 50,500,5000), with two consoles connected to GET /api/events
 * (one asking for nothing: status changes only; one watching a list page of 20 nodes):
 *  1. Heartbeats: for BENCH_WINDOW_SECONDS, master CPU and the events/s and bytes/s each console receives.
 *  2. Node list: GET /api/nodes paged (20 a page) and whole, p50/p99 and bytes, against the same reads as bare SQL
 *     on the store in the same run, and the first request of each (the master's first list requests).
 *  3. Load: tasks created through the API at BENCH_TASKS_PER_HOUR (default 100 000, ≈28/s) for BENCH_LOAD_SECONDS;
 *     each node starts and finishes an assigned task at once. Master CPU, GET /api/tasks and GET /api/nodes p99
 *     during the load (bare SQL alongside), events/s per console, and master CPU per task against the four
 *     statements a task needs at least run as bare SQL.
 * BENCH_EVENTS_ONLY=1 runs part 1 alone (to measure a master before the node feed with the same subscribers).
 * With BENCH_PG=1 the store is PostgreSQL (CRAWLDECK_TEST_PG_URL), in a database of its own named
 * `<BENCH_DB_PREFIX>_<pid>_<n>` (default prefix crawldeck_fleet_bench), dropped after. Ports from BENCH_PORT (41000) up.
 * In every part: the master's event-loop delay (p99, max) and GET /api/version (p99, max: how long any request
 * waited behind other work), read through bench/fleet-probe.ts; BENCH_PROFILE_DIR=<dir> also writes a CPU profile
 * of the master for each part (read them with bench/fleet-profile.ts).
 * BENCH_BIG_STORE=1: before the measured master starts, the store gets BENCH_BIG_TASKS (10M) finished tasks and
 * BENCH_METRICS_DAYS (7) days of per-minute metrics of BENCH_METRICS_NODES (500) of the fleet's nodes by bulk SQL
 * (bench/fleet-seed.ts; the seeded store is kept and copied for later runs, BENCH_BIG_DROP=1 removes it).
 * Run: `node --import tsx bench/fleet.bench.ts`.
 */
import {
  api,
  BARE,
  bareDispatch,
  bareReader,
  connectFleet,
  ConsoleSubscriber,
  cpuSeconds,
  PG,
  pct,
  sleep,
  startHeartbeats,
  startMasterProcess,
  timedGet,
  type Master,
} from './fleet-support.ts';
import { versionProbe } from './version-probe.ts';
import { benchNodeId, dropKept, seedBigStore, type SeedPlan } from './fleet-seed.ts';

const FLEETS = (process.env.BENCH_FLEETS ?? '50,500,5000').split(',').map(Number);
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 10);
const LOAD_S = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
const TASKS_PER_HOUR = Number(process.env.BENCH_TASKS_PER_HOUR ?? 100_000);
const EVENTS_ONLY = process.env.BENCH_EVENTS_ONLY === '1';
const PAGE = 20;
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const BIG: SeedPlan | undefined =
  process.env.BENCH_BIG_STORE === '1'
    ? {
        tasks: Number(process.env.BENCH_BIG_TASKS ?? 10_000_000),
        metricsNodes: Number(process.env.BENCH_METRICS_NODES ?? 500),
        metricsDays: Number(process.env.BENCH_METRICS_DAYS ?? 7),
      }
    : undefined;

const f1 = (n: number) => n.toFixed(1);
const kb = (n: number) => (n / 1024).toFixed(1);

interface Consoles {
  quiet: ConsoleSubscriber;
  page: ConsoleSubscriber;
}

/** Events/s and bytes/s of each console since its last reset. */
function perConsole(c: Consoles, seconds: number) {
  const rate = (s: ConsoleSubscriber) => ({
    events: s.events / seconds,
    bytes: s.bytes / seconds,
    nodeEvents: [...s.byName].filter(([name]) => name.startsWith('node')).reduce((a, [, n]) => a + n, 0) / seconds,
  });
  return { quiet: rate(c.quiet), page: rate(c.page) };
}

interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  mean: number;
  gc: { count: number; max: number; total: number; over50: number; maxMinor: number; maxMajor: number };
  slow: { sql: string; ms: number; at: number }[];
  /** The master's main thread: ms it ran, ms it waited for a CPU, and in how many time slices. */
  sched: { runMs: number; waitMs: number; slices: number };
  /** Requests timed by the master, by route: arrival to the answer's last byte; the slowest's ms into the window. */
  served: { route: string; count: number; p50: number; p99: number; max: number; slowestAt: number }[];
}

/** How late the master's event loop ran and how long GET /api/version took while `work` ran. */
async function stalls<T>(m: Master, work: () => Promise<T>): Promise<T & { loop: LoopDelay; version: number[] }> {
  await m.probe({ probe: 'reset' });
  const version = versionProbe(m);
  const r = await work();
  const loop = await m.probe<LoopDelay>({ probe: 'read' });
  return { ...r, loop, version: await version.stop() };
}

async function heartbeatWindow(m: Master, c: Consoles) {
  c.quiet.reset();
  c.page.reset();
  const cpu0 = cpuSeconds(m.proc.pid!);
  const t0 = performance.now();
  await sleep(WINDOW_S * 1000);
  const seconds = (performance.now() - t0) / 1000;
  return { cpuPct: ((cpuSeconds(m.proc.pid!) - cpu0) / seconds) * 100, ...perConsole(c, seconds) };
}

/**
 * Runs `work` under a CPU profile of the master when BENCH_PROFILE_DIR is set. The window's delays are read inside
 * `work`: writing the profile holds the master's thread for hundreds of milliseconds, which is not the master's own.
 */
async function profiled<T>(m: Master, label: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return work();
  await m.probe({ probe: 'profile-start' });
  try {
    return await work();
  } finally {
    await m.probe({ probe: 'profile-stop', file: `${PROFILE_DIR}/${label}.cpuprofile` });
  }
}

const stallLine = (r: { loop: LoopDelay; version: number[] }) =>
  `loop delay p99 ${f1(r.loop.p99)} max ${f1(r.loop.max)} ms, GET /version p99 ${f1(pct(r.version, 99))} max ${f1(Math.max(...r.version))} ms, GC ${r.loop.gc.count} pauses max ${f1(r.loop.gc.max)} ms (scavenge ${f1(r.loop.gc.maxMinor)}, other ${f1(r.loop.gc.maxMajor)}; ${r.loop.gc.over50} > 50 ms, ${f1(r.loop.gc.total)} ms in all), SQLite statements > 50 ms: ${slowLine(r.loop.slow)} | ${schedLine(r.loop.sched)} | as the master timed them: ${servedLine(r.loop.served)}`;

/** Time the master's main thread was ready to run but waited for a CPU (a busy machine, not the master). */
const schedLine = (s: LoopDelay['sched']) =>
  `main thread waited for a CPU ${s.waitMs} ms (ran ${s.runMs} ms in ${s.slices} slices, ${f1(s.waitMs / Math.max(1, s.slices))} ms a slice)`;

/** The list and task routes as the master timed them (the client's own delays left out). */
function servedLine(served: LoopDelay['served']): string {
  const shown = served.filter((r) => /\/(nodes|tasks|version)\b/.test(r.route) && r.route.startsWith('GET'));
  return shown
    .map(
      (r) =>
        `${r.route} p50 ${f1(r.p50)} p99 ${f1(r.p99)} max ${f1(r.max)} ms (${r.count}, slowest at +${r.slowestAt} ms)`,
    )
    .join(' / ');
}

/** The window's slow statements: how many, the longest, and the three longest texts. */
function slowLine(slow: LoopDelay['slow']): string {
  if (!slow.length) return 'none';
  const top = [...slow].sort((a, b) => b.ms - a.ms).slice(0, 3);
  return `${slow.length}, max ${top[0]!.ms} ms (${top.map((s) => `${s.ms} ms ${s.sql}`).join(' / ')})`;
}

/** Latency samples of `route` and of its bare-SQL counterpart, one pair every 200 ms for `seconds`. */
async function sampleLists(m: Master, seconds: number, size: number) {
  const bare = await bareReader(m);
  const s = {
    paged: [] as number[],
    whole: [] as number[],
    tasks: [] as number[],
    barePaged: [] as number[],
    bareWhole: [] as number[],
  };
  let pagedBytes = 0;
  let wholeBytes = 0;
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < seconds * 1000; i++) {
    const pageNum = 1 + (i % Math.max(1, Math.ceil(size / PAGE)));
    const p = await timedGet(m, `/nodes?page_num=${pageNum}&page_size=${PAGE}`);
    s.paged.push(p.ms);
    pagedBytes = p.bytes;
    const w = await timedGet(m, '/nodes');
    s.whole.push(w.ms);
    wholeBytes = w.bytes;
    s.tasks.push((await timedGet(m, '/tasks?page_num=1&page_size=10')).ms);
    s.barePaged.push(await timed(() => bare.run(BARE.nodesPage)));
    s.bareWhole.push(await timed(() => bare.run(BARE.nodesWhole)));
    await sleep(200);
  }
  await bare.close();
  return { ...s, pagedBytes, wholeBytes };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Creates tasks at the hourly rate for LOAD_S while sampling GET /tasks and GET /nodes (and their bare SQL). */
async function load(m: Master, c: Consoles) {
  const sid = (await api(m, 'PUT', '/spiders', { name: 'fleet-load', cmd: 'echo sim', type: 'customized' })).data
    ._id as string;
  const rate = TASKS_PER_HOUR / 3600;
  let created = 0;
  let inFlight = 0;
  let done = false;
  const t0 = performance.now();
  c.quiet.reset();
  c.page.reset();
  const cpu0 = cpuSeconds(m.proc.pid!);
  const creator = (async () => {
    while (!done) {
      const due = Math.floor(((performance.now() - t0) / 1000) * rate);
      while (created < due && inFlight < 32) {
        created++;
        inFlight++;
        void api(m, 'PUT', '/tasks', { spider_id: sid, run_type: 'random' }).finally(() => inFlight--);
      }
      await sleep(20);
    }
  })();
  const bare = await bareReader(m);
  const lat = { tasks: [] as number[], nodes: [] as number[], bareTasks: [] as number[] };
  while (performance.now() - t0 < LOAD_S * 1000) {
    lat.tasks.push((await timedGet(m, '/tasks?page_num=1&page_size=10')).ms);
    lat.nodes.push((await timedGet(m, `/nodes?page_num=1&page_size=${PAGE}`)).ms);
    lat.bareTasks.push(await timed(() => Promise.all([bare.run(BARE.tasksPage), bare.run(BARE.tasksCount)])));
    await sleep(200);
  }
  done = true;
  await creator;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(m.proc.pid!) - cpu0;
  const events = perConsole(c, seconds);
  await bare.close();
  for (let i = 0; ; i++) {
    const finished = (await api(m, 'GET', `/tasks?spider_id=${sid}&status=finished&page_size=1`)).total as number;
    if (finished >= created || i > 600) break;
    await sleep(100);
  }
  return { sid, created, tasksPerSec: created / seconds, cpuPct: (cpu / seconds) * 100, cpuS: cpu, ...lat, events };
}

function eventsLine(label: string, e: ReturnType<typeof perConsole>): string {
  const one = (r: typeof e.quiet) => `${f1(r.events)} ev/s (${f1(r.nodeEvents)} of nodes) ${kb(r.bytes)} kB/s`;
  return `${label}: console (status only) ${one(e.quiet)}, console (page of ${PAGE}) ${one(e.page)}`;
}

async function runFleet(port: number, size: number): Promise<string[]> {
  const lines: string[] = [];
  const engine = (PG ? 'postgres' : 'sqlite') + (BIG ? ' big' : '');
  const seed =
    BIG &&
    (async (store: { dataDir: string; databaseUrl: string }) => {
      const t = await seedBigStore(store, BIG);
      const what = `${BIG.tasks} tasks, ${BIG.metricsDays} days of metrics of ${BIG.metricsNodes} nodes`;
      lines.push(
        t.copied
          ? `${engine} | ${what}: copied from the kept store`
          : `${engine} | seeded ${what} in ${f1(t.tasksS)} s (tasks) + ${f1(t.metricsS)} s (nodes and metrics)`,
      );
    });
  // The seeded tasks belong to 20 spiders made through the API of the master that creates the schema.
  const firstRun = async (first: Master) => {
    BIG!.spiders = [];
    for (let k = 0; k < 20; k++)
      BIG!.spiders.push(
        (await api(first, 'PUT', '/spiders', { name: `seeded-${k}`, cmd: 'echo seeded', type: 'customized' })).data
          ._id as string,
      );
  };
  const m = await startMasterProcess(port, { seed: seed || undefined, firstRun: BIG && firstRun });
  try {
    const fleet = await connectFleet(m, size, BIG ? benchNodeId : undefined);
    const beating = startHeartbeats(fleet);
    await sleep(2500); // every node is beating
    const ids = fleet.slice(0, PAGE).map((n) => n.nodeId);
    const consoles = { quiet: await ConsoleSubscriber.open(m), page: await ConsoleSubscriber.open(m, `?nodes=${ids}`) };
    const label = `${engine.replace(' ', '-')}-${size}`;
    const hb = await profiled(m, label, () => stalls(m, () => heartbeatWindow(m, consoles)));
    lines.push(
      `${engine} | ${size} nodes | heartbeats: master CPU ${f1(hb.cpuPct)} % | ${stallLine(hb)} | ${eventsLine('events', hb)}`,
    );
    if (!EVENTS_ONLY) {
      const l = await profiled(m, `${label}-lists`, () => stalls(m, () => sampleLists(m, WINDOW_S, size)));
      const ratio = (a: number[], b: number[]) => (pct(a, 50) / pct(b, 50)).toFixed(1);
      lines.push(
        `${engine} | ${size} nodes | GET /nodes paged p50 ${f1(pct(l.paged, 50))} p99 ${f1(pct(l.paged, 99))} ms ${kb(l.pagedBytes)} kB (bare SQL p50 ${pct(l.barePaged, 50).toFixed(2)} ms, ${ratio(l.paged, l.barePaged)}×) | whole p50 ${f1(pct(l.whole, 50))} p99 ${f1(pct(l.whole, 99))} ms ${kb(l.wholeBytes)} kB (bare SQL p50 ${f1(pct(l.bareWhole, 50))} ms, ${ratio(l.whole, l.bareWhole)}×) | GET /tasks p50 ${f1(pct(l.tasks, 50))} p99 ${f1(pct(l.tasks, 99))} ms | first requests: paged ${f1(l.paged[0]!)} ms, whole ${f1(l.whole[0]!)} ms | ${stallLine(l)}`,
      );
      const ld = await profiled(m, `${label}-load`, () => stalls(m, () => load(m, consoles)));
      const bare = await bareDispatch(m, ld.sid, 300);
      const hbCpuS = (hb.cpuPct / 100) * LOAD_S;
      const msPerTask = ((ld.cpuS - hbCpuS) / ld.created) * 1000;
      lines.push(
        `${engine} | ${size} nodes | load ${f1(ld.tasksPerSec)} tasks/s: master CPU ${f1(ld.cpuPct)} % (${msPerTask.toFixed(2)} ms/task over heartbeats, bare SQL ${bare.toFixed(2)} ms/task) | GET /tasks p50 ${f1(pct(ld.tasks, 50))} p99 ${f1(pct(ld.tasks, 99))} ms (bare SQL p50 ${pct(ld.bareTasks, 50).toFixed(2)} ms) | GET /nodes paged p50 ${f1(pct(ld.nodes, 50))} p99 ${f1(pct(ld.nodes, 99))} ms | ${stallLine(ld)} | ${eventsLine('events', ld.events)}`,
      );
    }
    beating.stop();
    consoles.quiet.close();
    consoles.page.close();
    for (const n of fleet) n.close();
  } finally {
    await m.stop();
  }
  for (const l of lines) console.log(l);
  return lines;
}

async function main(): Promise<void> {
  const rows: string[] = [];
  let port = Number(process.env.BENCH_PORT ?? 41000);
  for (const size of FLEETS) rows.push(...(await runFleet(port++, size)));
  if (BIG && process.env.BENCH_BIG_DROP === '1') await dropKept(BIG, PG);
  console.log('\n' + rows.join('\n'));
}

await main();

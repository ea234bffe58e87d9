/**
 * Loaded into the benchmark's master process only (`--import`), never part of the product: it answers the fleet
 * benchmark over the process's IPC channel with how late the master's event loop ran (the delay a timer or a
 * request waits behind whatever runs before it) and, on request, a CPU profile of a window.
 *
 * Messages from the benchmark: `{ probe: 'reset' }` starts a new delay window; `{ probe: 'read' }` answers the
 * window's delay in ms (p50, p99, max, mean), its garbage collection pauses and slow SQLite statements, how long the
 * main thread waited for a CPU, and the requests as the master timed them; `{ probe: 'profile-start' }` /
 * `{ probe: 'profile-stop', file }` write a `.cpuprofile` of the time between them (open it in Chrome's DevTools or
 * read it with bench/fleet-profile.ts).
 */
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

interface ProbeMessage {
  probe?: 'reset' | 'read' | 'profile-start' | 'profile-stop' | 'memory';
  file?: string;
}

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let inspector: Session | undefined;

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/** Garbage collection pauses of the window: how many, the longest, and their total, in ms. */
const gc = { count: 0, max: 0, total: 0, over50: 0, maxMinor: 0, maxMajor: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++;
    gc.total += e.duration;
    gc.max = Math.max(gc.max, e.duration);
    if (e.duration > 50) gc.over50++;
    // A scavenge of the young generation, or anything else (mark-compact, its incremental steps).
    const minor = (e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR;
    if (minor) gc.maxMinor = Math.max(gc.maxMinor, e.duration);
    else gc.maxMajor = Math.max(gc.maxMajor, e.duration);
  }
}).observe({ entryTypes: ['gc'] });

/** SQLite statements of the window that ran longer than SLOW_MS on the master's thread (text, ms, when). */
const SLOW_MS = 50;
let slow: { sql: string; ms: number; at: number }[] = [];
/** Per statement text, the runs and SQLite time of a profiled window (written beside its profile). */
let bySql = new Map<string, { runs: number; ms: number; max: number }>();

function countStatement(source: string, took: number): void {
  const s = bySql.get(source) ?? { runs: 0, ms: 0, max: 0 };
  s.runs++;
  s.ms += took;
  s.max = Math.max(s.max, took);
  bySql.set(source, s);
}

/** The profiled window's statements by SQLite time, longest first. */
const statementTotals = () =>
  [...bySql]
    .map(([sql, s]) => ({
      sql: sql.slice(0, 160),
      runs: s.runs,
      ms: Math.round(s.ms),
      meanMs: +(s.ms / s.runs).toFixed(3),
      maxMs: +s.max.toFixed(1),
    }))
    .sort((a, b) => b.ms - a.ms);

function timeSqliteStatements(): void {
  const require = createRequire(import.meta.url);
  // The server resolves the same CommonJS module, so patching its statement class here times the master's statements.
  const Database = require('better-sqlite3') as typeof import('better-sqlite3');
  const memory = new Database(':memory:');
  const proto = Object.getPrototypeOf(memory.prepare('select 1')) as Record<string, unknown>;
  memory.close();
  for (const name of ['run', 'get', 'all']) {
    const original = proto[name] as (this: { source: string }, ...a: unknown[]) => unknown;
    proto[name] = function (this: { source: string }, ...args: unknown[]) {
      const t0 = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const took = performance.now() - t0;
        countStatement(this.source, took);
        if (took > SLOW_MS) slow.push({ sql: this.source.slice(0, 70), ms: Math.round(took), at: Date.now() });
      }
    };
  }
}
timeSqliteStatements();

/**
 * Time the master's main thread spent ready to run but waiting for a CPU (the kernel's run-queue wait), and the
 * time it ran: on a busy machine a late loop can be the machine, not the master.
 */
function schedstat(): { runNs: number; waitNs: number; slices: number } {
  const [run, wait, slices] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').trim().split(' ');
  return { runNs: Number(run), waitNs: Number(wait), slices: Number(slices) };
}
let sched0 = schedstat();
/** When the window began (the slowest request of a route is placed from here). */
let windowAt = Date.now();

/**
 * Requests as the master saw them, from the request's arrival to the last byte of the answer, by route (its path,
 * and whether it asked for a page): a client's own delays do not count.
 */
const started = new WeakMap<IncomingMessage, { t0: number; at: number }>();
let served: { route: string; ms: number; at: number }[] = [];
subscribe('http.server.request.start', (m) => {
  started.set((m as { request: IncomingMessage }).request, { t0: performance.now(), at: Date.now() });
});
subscribe('http.server.response.finish', (m) => {
  const req = (m as { request: IncomingMessage }).request;
  const s = started.get(req);
  if (!s) return;
  const [path, query = ''] = (req.url ?? '').split('?');
  const route = `${req.method} ${path}${query.includes('page_num') ? ' (paged)' : ''}`;
  served.push({ route, ms: performance.now() - s.t0, at: s.at });
});

function schedDelta() {
  const now = schedstat();
  const slices = now.slices - sched0.slices;
  return {
    runMs: Math.round((now.runNs - sched0.runNs) / 1e6),
    waitMs: Math.round((now.waitNs - sched0.waitNs) / 1e6),
    slices,
  };
}

function servedSummary() {
  const by = new Map<string, { ms: number; at: number }[]>();
  for (const r of served) {
    const list = by.get(r.route) ?? [];
    list.push(r);
    by.set(r.route, list);
  }
  return [...by].map(([route, rs]) => {
    const sorted = rs.map((r) => r.ms).sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round(sorted[Math.min(sorted.length - 1, Math.floor((q / 100) * sorted.length))]! * 10) / 10;
    const slowest = rs.reduce((a, b) => (b.ms > a.ms ? b : a));
    return { route, count: rs.length, p50: at(50), p99: at(99), max: at(100), slowestAt: slowest.at - windowAt };
  });
}

async function handle(msg: ProbeMessage): Promise<unknown> {
  switch (msg.probe) {
    case 'reset':
      delay.reset();
      Object.assign(gc, { count: 0, max: 0, total: 0, over50: 0, maxMinor: 0, maxMajor: 0 });
      slow = [];
      served = [];
      sched0 = schedstat();
      windowAt = Date.now();
      return { ok: true };
    case 'read':
      return {
        p50: ms(delay.percentile(50)),
        p99: ms(delay.percentile(99)),
        max: ms(delay.max),
        mean: ms(delay.mean),
        gc: { ...gc },
        slow,
        sched: schedDelta(),
        served: servedSummary(),
      };
    case 'memory': {
      // A full collection first when the master runs with --expose-gc: what is left is held, not garbage.
      const collect = (globalThis as { gc?: () => void }).gc;
      collect?.();
      return { ...process.memoryUsage(), collected: !!collect };
    }
    case 'profile-start':
      bySql = new Map();
      inspector = new Session();
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
      await inspector.post('Profiler.start');
      return { ok: true };
    case 'profile-stop': {
      if (!inspector) return { ok: false };
      const { profile } = await inspector.post('Profiler.stop');
      writeFileSync(msg.file!, JSON.stringify(profile));
      writeFileSync(msg.file!.replace(/\.cpuprofile$/, '.statements.json'), JSON.stringify(statementTotals(), null, 1));
      inspector.disconnect();
      inspector = undefined;
      return { ok: true };
    }
    default:
      return undefined;
  }
}

if (process.send) {
  process.on('message', (msg: ProbeMessage) => {
    if (!msg?.probe) return;
    void handle(msg).then((answer) => process.send?.({ probe: msg.probe, answer }));
  });
  // The channel must not keep a stopping master alive.
  process.channel?.unref();
}

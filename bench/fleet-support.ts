/**
 * What the fleet benchmark is built from: a master in its own process, API calls against it, a simulated fleet,
 * console subscribers that count what the event stream sends them, and the same reads done as bare SQL on the
 * master's store from the benchmark process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { SimNode } from '../packages/server/test/support/sim-node.ts';

export const PG = process.env.BENCH_PG === '1';
export const KEY = 'fleet-bench-key';
const PASSWORD = 'bench-admin';
const REPO = path.resolve(import.meta.dirname, '..');
const TICKS = 100; // clock ticks per second of /proc/<pid>/stat

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}

/** CPU seconds (user + system) the process has used. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICKS;
}

export interface Master {
  url: string;
  proc: ChildProcess;
  token: string;
  dataDir: string;
  databaseUrl: string;
  /** Asks the master's probe (bench/fleet-probe.ts) over IPC and resolves with its answer. */
  probe<T = unknown>(msg: { probe: string; file?: string }): Promise<T>;
  stop(): Promise<void>;
}

/** Where a benchmark master keeps its data: a data directory and, on PostgreSQL, a database of the bench's own. */
interface BenchStore {
  dataDir: string;
  databaseUrl: string;
  drop(): Promise<void>;
}

const PG_ADMIN = process.env.CRAWLDECK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
let databases = 0;

/** Runs one statement as PostgreSQL's administrator (databases of the benchmarks). */
export async function adminQuery(q: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN });
  await c.connect();
  try {
    await c.query(q);
  } finally {
    await c.end();
  }
}

async function createStore(postgres: boolean): Promise<BenchStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wt-fleet-bench-master-'));
  if (!postgres)
    return { dataDir, databaseUrl: '', drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const name = `${process.env.BENCH_DB_PREFIX ?? 'crawldeck_fleet_bench'}_${process.pid}_${databases++}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return {
    dataDir,
    databaseUrl: PG_ADMIN.replace(/\/[^/]*$/, `/${name}`),
    async drop() {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface MasterOptions {
  postgres?: boolean;
  /** Fills the store before the master that is measured starts (a first start creates the schema). */
  seed?: (store: { dataDir: string; databaseUrl: string }) => Promise<void>;
  /** Calls to the first master (the one that creates the schema), before `seed`. */
  firstRun?: (m: Master) => Promise<void>;
}

/** A master started by the CLI in its own process, no embedded node; on PostgreSQL when `postgres` (BENCH_PG). */
export async function startMasterProcess(port: number, options: MasterOptions | boolean = {}): Promise<Master> {
  const opts = typeof options === 'boolean' ? { postgres: options } : options;
  const store = await createStore(opts.postgres ?? PG);
  try {
    if (opts.seed) {
      const first = await launch(port, store);
      await opts.firstRun?.(first);
      await first.stop();
      await opts.seed(store);
    }
    const m = await launch(port, store);
    return { ...m, stop: async () => (await m.stop(), await store.drop()) };
  } catch (err) {
    await store.drop();
    throw err;
  }
}

/** Extra options for the master's node (BENCH_MASTER_NODE_ARGS, space-separated), e.g. `--max-semi-space-size=32`. */
const masterNodeArgs = () => (process.env.BENCH_MASTER_NODE_ARGS ?? '').split(' ').filter(Boolean);

async function launch(port: number, store: BenchStore): Promise<Master> {
  const cli = path.join(REPO, 'packages/cli/src/main.ts');
  const probe = path.join(REPO, 'bench/fleet-probe.ts');
  const proc = spawn(
    process.execPath,
    [
      ...masterNodeArgs(),
      '--import',
      'tsx',
      '--import',
      probe,
      cli,
      'start',
      '--port',
      String(port),
      '--data-dir',
      store.dataDir,
    ],
    {
      cwd: REPO,
      env: {
        ...process.env,
        CRAWLDECK_EMBEDDED_NODE: 'false',
        CRAWLDECK_NODE_KEY: KEY,
        CRAWLDECK_ADMIN_PASSWORD: PASSWORD,
        CRAWLDECK_DATABASE_URL: store.databaseUrl,
        CRAWLDECK_LOG_LEVEL: 'error',
        CRAWLDECK_NODE_OFFLINE_SECONDS: '600',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  // A benchmark that fails leaves no master behind, still listening on its port.
  const killOnExit = () => proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise((r) => proc.once('exit', r)).finally(() => process.off('exit', killOnExit));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url + '/api/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: PASSWORD }),
      });
      if (r.status === 200) {
        const token = ((await r.json()) as { data: string }).data;
        const stop = async () => {
          proc.kill('SIGTERM');
          await exited;
        };
        const probeCall = <T>(msg: { probe: string; file?: string }) =>
          new Promise<T>((resolve) => {
            const on = (answer: { probe?: string; answer: T }) => {
              if (answer?.probe !== msg.probe) return;
              proc.off('message', on);
              resolve(answer.answer);
            };
            proc.on('message', on);
            proc.send(msg);
          });
        return { url, proc, token, ...store, probe: probeCall, stop };
      }
    } catch {
      /* not listening yet */
    }
    if (i > 1200) {
      proc.kill('SIGKILL');
      throw new Error('master did not start within 2 minutes');
    }
    await sleep(100);
  }
}

export async function api(m: Master, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(m.url + '/api' + route, {
    method,
    headers: { authorization: m.token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${json.error}`);
  return json;
}

/** Milliseconds and response bytes of one GET. */
export async function timedGet(m: Master, route: string): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(m.url + '/api' + route, { headers: { authorization: m.token } });
  const body = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET ${route}: ${res.status}`);
  return { ms: performance.now() - t0, bytes: body.byteLength };
}

/** Runs `fn` with up to `n` calls at a time. */
export async function pool(count: number, n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** `size` simulated nodes connected to the master; `idOf` names them (default: random ids). */
export async function connectFleet(m: Master, size: number, idOf?: (i: number) => string): Promise<SimNode[]> {
  const fleet = Array.from(
    { length: size },
    (_, i) =>
      new SimNode({
        master: m.url,
        key: KEY,
        name: `sim-${i}`,
        nodeId: idOf?.(i),
        maxRunners: 4,
        onAssign: (n, t) => {
          n.started(t.taskId);
          n.finished(t.taskId);
        },
      }),
  );
  await pool(size, 100, (i) => fleet[i].connect());
  return fleet;
}

/** Every node beats every `periodMs`, spread evenly; returns the beat count so far and a stop function. */
export function startHeartbeats(fleet: SimNode[], periodMs = 2000) {
  const state = { beats: 0 };
  const timers: NodeJS.Timeout[] = [];
  fleet.forEach((n, i) =>
    timers.push(
      setTimeout(
        () =>
          timers.push(
            setInterval(() => {
              n.heartbeat();
              state.beats++;
            }, periodMs),
          ),
        (i * periodMs) / fleet.length,
      ),
    ),
  );
  return {
    state,
    stop() {
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
    },
  };
}

/** A console's open event stream: counts the events (by name) and the bytes it receives. */
export class ConsoleSubscriber {
  events = 0;
  bytes = 0;
  byName = new Map<string, number>();
  private buf = '';
  private readonly controller = new AbortController();

  static async open(m: Master, query = ''): Promise<ConsoleSubscriber> {
    const s = new ConsoleSubscriber();
    const res = await fetch(`${m.url}/api/events${query}`, {
      headers: { authorization: m.token },
      signal: s.controller.signal,
    });
    if (res.status !== 200) throw new Error(`GET /api/events: ${res.status}`);
    void s.read(res.body!.getReader()).catch(() => undefined);
    return s;
  }

  private async read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const dec = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      this.bytes += value.byteLength;
      this.buf += dec.decode(value, { stream: true });
      let idx: number;
      while ((idx = this.buf.indexOf('\n\n')) >= 0) {
        const block = this.buf.slice(0, idx);
        this.buf = this.buf.slice(idx + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        if (!name) continue;
        this.events++;
        this.byName.set(name, (this.byName.get(name) ?? 0) + 1);
      }
    }
  }

  reset(): void {
    this.events = 0;
    this.bytes = 0;
    this.byName.clear();
  }

  close(): void {
    this.controller.abort();
  }
}

/** The same reads as bare SQL on the master's store, from this process: the baseline of each request. */
export async function bareReader(m: Master) {
  if (PG) {
    const c = new pg.Client({ connectionString: m.databaseUrl });
    await c.connect();
    return {
      run: async (q: string) => void (await c.query(q)),
      close: () => c.end(),
    };
  }
  const db = new Database(path.join(m.dataDir, 'crawldeck.db'), { readonly: true });
  db.pragma('busy_timeout = 5000');
  return {
    run: async (q: string) => void db.prepare(q).all(),
    close: async () => db.close(),
  };
}

export const BARE = {
  nodesWhole: 'SELECT * FROM nodes ORDER BY type, create_ts',
  nodesPage: 'SELECT * FROM nodes ORDER BY type, create_ts LIMIT 20 OFFSET 40',
  tasksPage: 'SELECT * FROM tasks ORDER BY create_ts DESC, id DESC LIMIT 10',
  tasksCount: 'SELECT count(*) FROM tasks',
};

/** The four statements a dispatched task needs at least, straight on the store: CPU ms per task. */
export async function bareDispatch(m: Master, spider: string, count: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  const ids = Array.from({ length: count }, (_, i) => `bare${String(i).padStart(20, '0')}`);
  const now = Date.now();
  const insert = `INSERT INTO tasks (id, spider_id, node_id, type, status, run_type, create_ts) VALUES ($1, $2, '000000000000000000000000', 'spider', 'pending', 'random', ${now})`;
  const claim = `UPDATE tasks SET node_id = 'n', assign_ts = ${now} WHERE id = $1 AND status = 'pending' AND assign_ts IS NULL`;
  const start = `UPDATE tasks SET status = 'running', start_ts = ${now} WHERE id = $1 AND status = 'pending'`;
  const finish = `UPDATE tasks SET status = 'finished', finish_ts = ${now} WHERE id = $1`;
  if (PG) {
    const c = new pg.Client({ connectionString: m.databaseUrl });
    await c.connect();
    for (const id of ids) {
      await c.query(insert, [id, spider]);
      for (const q of [claim, start, finish]) await c.query(q, [id]);
    }
    await c.end();
  } else {
    const db = new Database(path.join(m.dataDir, 'crawldeck.db'));
    db.pragma('busy_timeout = 5000');
    const sql = (q: string) => db.prepare(q.replace(/\$\d/g, '?'));
    const [i, c, s, f] = [sql(insert), sql(claim), sql(start), sql(finish)];
    for (const id of ids) {
      i.run(id, spider);
      c.run(id);
      s.run(id);
      f.run(id);
    }
    db.close();
  }
  const u = process.cpuUsage(cpu0);
  return (u.user + u.system) / 1000 / count;
}

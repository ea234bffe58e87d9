/**
 * Master memory after big batches: a master in its own process (`crawldeck start`, no embedded node, SQLite or
 * PostgreSQL from BENCH_ENGINES) takes, from a simulated node shipping with the node's own Shipper, one task's 200 MB
 * log (BENCH_MEMORY_LOG_MB) and then one item of 15 MB (BENCH_MEMORY_ITEM_MB; the master stores items up to
 * 16 MiB unless its limit is raised, and the node refuses a longer one as the node does) between two small ones. The master's
 * RSS is read from /proc before (the same run's baseline), sampled every 50 ms during each ingest for the peak, and
 * read again after the ingest has settled: after a full collection in the master (it runs with --expose-gc) and
 * BENCH_MEMORY_SETTLE_S seconds (default 30) of idling, with its V8 heap and external memory beside it.
 * Run: `node --import tsx bench/master-memory.bench.ts`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_MAX_ITEM_BYTES, type ShipBatch } from '@crawldeck/shared';
import { SimNode } from '../packages/server/test/support/sim-node.ts';
import { KEY, api, sleep, startMasterProcess, type Master } from './fleet-support.ts';
import { Shipper } from '../packages/node/src/shipper.ts';
import { MasterHttp } from '../packages/node/src/master-http.ts';

const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite').split(',') as ('sqlite' | 'postgres')[];
const LOG_MB = Number(process.env.BENCH_MEMORY_LOG_MB ?? 200);
const ITEM_MB = Number(process.env.BENCH_MEMORY_ITEM_MB ?? 15);
const SETTLE_S = Number(process.env.BENCH_MEMORY_SETTLE_S ?? 30);
const MiB = 1024 * 1024;

process.env.BENCH_MASTER_NODE_ARGS = `${process.env.BENCH_MASTER_NODE_ARGS ?? ''} --expose-gc`.trim();

function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

async function settled(m: Master): Promise<{ rss: number; heap: string }> {
  await sleep(SETTLE_S * 1000);
  const u = await m.probe<Memory>({ probe: 'memory' });
  const mb = (n: number) => Math.round(n / MiB);
  return {
    rss: rss(m.proc.pid!),
    heap: `heap ${mb(u.heapUsed)} MiB, external ${mb(u.external)} MiB (buffers ${mb(u.arrayBuffers)} MiB)`,
  };
}

/** Ships `text` as one task's log or items with the node's Shipper; the peak RSS of the master meanwhile. */
async function ship(m: Master, sim: SimNode, spiderId: string, kind: 'logs' | 'items', text: string) {
  await api(m, 'PUT', '/tasks', { spider_id: spiderId, run_type: 'selected-nodes', node_ids: [sim.nodeId] });
  while (!sim.assigned.length) await sleep(20);
  const taskId = sim.assigned.shift()!.taskId;
  sim.started(taskId);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-bench-memory-'));
  const file = path.join(dir, 'spool.txt');
  writeFileSync(file, text);
  const http = new MasterHttp([m.url], KEY, sim.nodeId);
  const rule = kind === 'items' ? { maxBytes: DEFAULT_MAX_ITEM_BYTES, refused: () => undefined } : undefined;
  const post = (b: ShipBatch) => http.ship(kind, taskId, b);
  const shipper = new Shipper(
    file,
    { bytes: 0, lines: 0 },
    post,
    () => undefined,
    () => undefined,
    undefined,
    undefined,
    rule,
  );
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rss(m.proc.pid!))), 50);
  const t0 = performance.now();
  await shipper.drain();
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rss(m.proc.pid!));
  rmSync(dir, { recursive: true, force: true });
  const lines = text.split('\n').length - 1;
  sim.finished(taskId, kind === 'logs' ? lines : 0, kind === 'items' ? lines : 0);
  const t = (await api(m, 'GET', `/tasks/${taskId}`)).data;
  const stored = kind === 'logs' ? t.log_count : t.result_count;
  if (stored !== lines) throw new Error(`${kind}: ${stored} of ${lines} stored`);
  return { seconds, peak };
}

async function run(engine: 'sqlite' | 'postgres', port: number): Promise<void> {
  const m = await startMasterProcess(port, engine === 'postgres');
  const sim = new SimNode({ master: m.url, key: KEY, name: 'bench-memory', maxRunners: 10 });
  try {
    await sim.connect();
    const spider = (await api(m, 'PUT', '/spiders', { name: 'memory', cmd: 'echo sim', type: 'customized' })).data;
    const f = (n: number) => `${Math.round(n)} MiB`;
    const base = await settled(m);
    console.log(`${engine}: baseline RSS ${f(base.rss)} (${base.heap})`);
    const line = `2026-12-07 23:00:00 [spider] INFO: scraped https://example.com/page/${'x'.repeat(40)} `;
    const count = Math.ceil((LOG_MB * MiB) / (line.length + 8));
    const log = Array.from({ length: count }, (_, i) => line + String(i).padStart(7, '0')).join('\n') + '\n';
    const logRun = await ship(m, sim, spider._id as string, 'logs', log);
    const afterLog = await settled(m);
    console.log(
      `${engine}: ${LOG_MB} MB log (${count} lines) in ${logRun.seconds.toFixed(1)} s: peak ${f(logRun.peak)}, ` +
        `settled ${f(afterLog.rss)} (${afterLog.heap})`,
    );
    const big = JSON.stringify({ n: 1, html: 'h'.repeat(ITEM_MB * MiB) });
    const items = [JSON.stringify({ n: 0 }), big, JSON.stringify({ n: 2 })].join('\n') + '\n';
    const itemRun = await ship(m, sim, spider._id as string, 'items', items);
    const afterItem = await settled(m);
    console.log(
      `${engine}: ${ITEM_MB} MB item between two small ones in ${itemRun.seconds.toFixed(1)} s: peak ` +
        `${f(itemRun.peak)}, settled ${f(afterItem.rss)} (${afterItem.heap})`,
    );
  } finally {
    sim.close();
    await m.stop();
  }
}

let port = Number(process.env.BENCH_PORT ?? 23010) + 40;
for (const engine of ENGINES) await run(engine, port++);

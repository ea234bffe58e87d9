/**
 * Task execution benchmarks. Run: `node --import tsx bench/tasks.bench.ts` (BENCH_PG=1 also runs on
 * PostgreSQL at CRAWLDECK_TEST_PG_URL). A master with its embedded node, in this process:
 *  1. Run → process started: PUT /api/tasks until the spider's first instruction (`date +%s%3N`), p50/p99 over
 *     RUNS runs, against a bare `spawn(cmd, {shell: true})` of the same command measured the same way.
 *  2. Log ingest: a spider printing LOG_LINES lines (`seq`); lines/s from task start to all lines stored.
 *  3. Item ingest: a spider appending ITEMS JSON lines to CRAWLDECK_ITEMS; items/s from start to all stored.
 *  4. GET /tasks/{id}/log page latency (page size 5000: first, middle, last page; keyword search) on the 1M-line log.
 *  5. CSV export of the ITEMS rows: time, bytes and peak RSS of the process during the download.
 */
import { spawn } from 'node:child_process';
import type { RunningMaster } from '../packages/server/src/master.ts';
import { pct } from './fleet-support.ts';
import { api, waitDone, waitNodeOnline, withMaster } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const LOG_LINES = Number(process.env.BENCH_LOG_LINES ?? 1_000_000);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 1_000_000);
const START_CMD = 'date +%s%3N';

async function spider(m: RunningMaster, token: string, name: string, cmd: string): Promise<string> {
  return (await api(m, token, 'PUT', '/spiders', { name, cmd, type: 'customized' })).data._id;
}

function bareSpawn(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const p = spawn(START_CMD, { shell: true, detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout!.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', () => resolve(Number(out.trim()) - t0));
  });
}

async function bench(engine: 'sqlite' | 'postgres'): Promise<void> {
  await withMaster({ engine, scratch: 'crawldeck-bench-tasks', embeddedNode: true }, async (m, token) => {
    await waitNodeOnline(m, token);
    console.log(`\n## ${engine}`);

    // 1. Run → process started
    const sid = await spider(m, token, 'latency', START_CMD);
    const viaTask: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < RUNS + 3; i++) {
      const t0 = Date.now();
      const [id] = (await api(m, token, 'PUT', '/tasks', { spider_id: sid, run_type: 'random' })).data;
      await waitDone(m, token, id);
      const log = (await api(m, token, 'GET', `/tasks/${id}/log`)).data;
      const b = await bareSpawn();
      if (i >= 3) {
        viaTask.push(Number(log[0].msg) - t0);
        bare.push(b);
      }
    }
    console.log(
      `run→process started: p50 ${pct(viaTask, 50)} ms, p99 ${pct(viaTask, 99)} ms; bare spawn p50 ${pct(bare, 50)} ms, p99 ${pct(bare, 99)} ms (${RUNS} runs)`,
    );

    // 2. Log ingest
    const logSpider = await spider(m, token, 'loglines', `seq 1 ${LOG_LINES}`);
    const t0 = Date.now();
    const [logTask] = (await api(m, token, 'PUT', '/tasks', { spider_id: logSpider, run_type: 'random' })).data;
    let done = await waitDone(m, token, logTask);
    let secs = (Date.now() - Date.parse(done.start_ts)) / 1000;
    console.log(
      `log ingest: ${done.log_count} lines stored ${secs.toFixed(1)} s after the process started = ${Math.round(done.log_count / secs)} lines/s (process ran ${((Date.parse(done.finish_ts) - Date.parse(done.start_ts)) / 1000).toFixed(1)} s; run→all stored ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );

    // 4. Log page latency on the big log
    const pageTimes = async (label: string, route: string) => {
      const xs: number[] = [];
      for (let i = 0; i < 12; i++) {
        const s = performance.now();
        await api(m, token, 'GET', route);
        if (i >= 2) xs.push(performance.now() - s);
      }
      console.log(`  GET log ${label}: p50 ${pct(xs, 50).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`);
    };
    const pages = Math.ceil(done.log_count / 5000);
    console.log(`log page latency on a ${done.log_count}-line log (page size 5000):`);
    await pageTimes('page 1', `/tasks/${logTask}/log?page_num=1&page_size=5000`);
    await pageTimes(
      `page ${Math.ceil(pages / 2)}`,
      `/tasks/${logTask}/log?page_num=${Math.ceil(pages / 2)}&page_size=5000`,
    );
    await pageTimes(`page ${pages} (last)`, `/tasks/${logTask}/log?page_num=${pages}&page_size=5000`);
    {
      const s = performance.now();
      const r = await api(m, token, 'GET', `/tasks/${logTask}/log?keyword=99999&page_size=5000`);
      console.log(`  GET log keyword search (full scan, ${r.total} hits): ${(performance.now() - s).toFixed(0)} ms`);
    }

    // 3. Item ingest
    const itemSpider = await spider(
      m,
      token,
      'items',
      `seq 1 ${ITEMS} | awk '{printf "{\\"i\\":%d,\\"name\\":\\"item %d, \\\\\\"quoted\\\\\\"\\",\\"price\\":%d.5}\\n", $1, $1, $1 % 1000}' >> "$CRAWLDECK_ITEMS"`,
    );
    const [itemTask] = (await api(m, token, 'PUT', '/tasks', { spider_id: itemSpider, run_type: 'random' })).data;
    done = await waitDone(m, token, itemTask);
    secs = (Date.now() - Date.parse(done.start_ts)) / 1000;
    console.log(
      `item ingest: ${done.result_count} items stored ${secs.toFixed(1)} s after the process started = ${Math.round(done.result_count / secs)} items/s (process ran ${((Date.parse(done.finish_ts) - Date.parse(done.start_ts)) / 1000).toFixed(1)} s)`,
    );

    // 5. CSV export
    if (global.gc) global.gc();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const s = performance.now();
    const res = await fetch(`${m.url}/api/tasks/${itemTask}/results/download`, { headers: { authorization: token } });
    let bytes = 0;
    let rows = 0;
    const reader = res.body!.getReader();
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      bytes += value.length;
      for (const b of value) if (b === 10) rows++;
    }
    clearInterval(sampler);
    const ms = performance.now() - s;
    console.log(
      `CSV export: ${rows - 1} rows, ${(bytes / 1e6).toFixed(1)} MB in ${(ms / 1000).toFixed(1)} s (${Math.round((rows - 1) / (ms / 1000))} rows/s); ` +
        `process RSS ${(rssBefore / 1048576).toFixed(0)} MiB before, peak ${(peak / 1048576).toFixed(0)} MiB during (+${((peak - rssBefore) / 1048576).toFixed(0)} MiB; server and client in one process)`,
    );
  });
}

await bench('sqlite');
if (process.env.BENCH_PG === '1') await bench('postgres');
process.exit(0);

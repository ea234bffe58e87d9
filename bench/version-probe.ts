/**
 * GET /api/version sampled while a benchmark runs: how long any request waits behind the master's other work.
 */
import { Worker } from 'node:worker_threads';
import type { Master } from './fleet-support.ts';

/**
 * The version probe's loop, run in a thread of its own: the simulated fleet keeps this process's main thread busy,
 * and a probe there would time that thread's own waits as well as the master's.
 */
const VERSION_PROBE_LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, everyMs } = workerData;
const ms = [];
let on = true;
parentPort.on('message', () => { on = false; });
(async () => {
  while (on) {
    const t0 = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    ms.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  parentPort.postMessage(ms);
})();
`;

/** Samples GET /api/version (no store, no session) every `everyMs` until stopped: how long any request waits. */
export function versionProbe(m: Master, everyMs = 100) {
  const worker = new Worker(VERSION_PROBE_LOOP, { eval: true, workerData: { url: m.url + '/api/version', everyMs } });
  const done = new Promise<number[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const ms = await done;
      await worker.terminate();
      return ms;
    },
  };
}

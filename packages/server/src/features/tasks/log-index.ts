import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { AppContext } from '../../context.ts';

/** A plain JavaScript entry that loads the TypeScript worker (worker threads start without the master's loader). */
const WORKER_FILE = new URL('./ts-worker.mjs', import.meta.url);

/**
 * Starts the background indexer of task logs (SQLite only; its progress is stored, so it resumes after a restart).
 * A worker that fails is started again after the idle pause; closing the master stops it between two chunks.
 */
export function startLogIndexer(ctx: AppContext): void {
  const idleMs = ctx.config.logIndexIdleMs;
  if (ctx.store.engine !== 'sqlite' || idleMs <= 0) return;
  let closed = false;
  let worker: Worker | undefined;
  let retry: NodeJS.Timeout | undefined;
  const start = () => {
    const entry = new URL('./log-index.worker.ts', import.meta.url).href;
    const w = new Worker(WORKER_FILE, {
      workerData: { entry, file: ctx.store.location, idleMs, cache: ctx.config.sqliteCache },
      execArgv: [],
    });
    worker = w;
    w.on('message', (msg: { error?: string }) => {
      if (msg.error) ctx.log.warn({ err: msg.error }, 'log indexer: a chunk failed, it is tried again');
    });
    w.on('error', (err) => ctx.log.warn({ err }, 'log indexer stopped'));
    w.on('exit', () => {
      if (worker === w) worker = undefined;
      if (!closed) retry = setTimeout(start, idleMs);
    });
  };
  start();
  ctx.onClose(async () => {
    closed = true;
    clearTimeout(retry);
    const w = worker;
    if (!w) return;
    const exited = once(w, 'exit');
    w.postMessage('stop');
    // A chunk is short; a worker that does not stop soon (a long wait for the lock) is ended.
    const timer = setTimeout(() => void w.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  });
}

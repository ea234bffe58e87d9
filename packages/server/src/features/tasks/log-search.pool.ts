import { Worker } from 'node:worker_threads';
import type { LogSearchAnswer, LogSearchJob } from './log-search.store.ts';

interface Pending {
  job: LogSearchJob;
  resolve(answer: LogSearchAnswer): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  busy?: { id: number; pending: Pending };
}

/** A plain JavaScript entry that loads the TypeScript worker (worker threads start without the master's loader). */
const WORKER_FILE = new URL('./ts-worker.mjs', import.meta.url);

/**
 * A small pool of search worker threads over the SQLite file, started on the first search. Searches beyond the
 * pool's size wait in line; a worker that dies fails its search and is replaced on the next one.
 */
export class LogSearchPool {
  private slots: Slot[] = [];
  private queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly size: number,
  ) {}

  search(job: LogSearchJob): Promise<LogSearchAnswer> {
    if (this.closed) return Promise.reject(new Error('log search is shut down'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  /** Starts one worker ahead of the first search (starting one takes a moment), when none runs yet. */
  warm(): void {
    if (!this.closed && !this.slots.length) this.spawn();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('log search is shut down'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots = [];
  }

  private dispatch(): void {
    while (this.queue.length) {
      const slot = this.slots.find((s) => !s.busy) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const pending = this.queue.shift()!;
      slot.busy = { id: this.nextId++, pending };
      slot.worker.postMessage({ id: slot.busy.id, job: pending.job });
    }
  }

  private spawn(): Slot {
    const entry = new URL('./log-search.worker.ts', import.meta.url).href;
    const worker = new Worker(WORKER_FILE, { workerData: { entry, file: this.file }, execArgv: [] });
    const slot: Slot = { worker };
    worker.on('message', (msg: { id: number; answer?: LogSearchAnswer; error?: string }) => {
      const busy = slot.busy;
      if (!busy || busy.id !== msg.id) return;
      slot.busy = undefined;
      if (msg.answer) busy.pending.resolve(msg.answer);
      else busy.pending.reject(new Error(msg.error ?? 'log search failed'));
      this.dispatch();
    });
    const lost = (err: Error) => {
      this.slots = this.slots.filter((s) => s !== slot);
      slot.busy?.pending.reject(err);
      slot.busy = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`log search worker stopped (exit code ${code})`)));
    this.slots.push(slot);
    return slot;
  }
}

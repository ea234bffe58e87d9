/**
 * Shipping a running task's spool as it grows: the process writes its log and items straight into files, and each
 * change wakes the file's shipper. File systems that send no change events are covered by a tick once a second,
 * which also looks whether the spool's disk still takes writes (full, read-only).
 */
import { watch, type FSWatcher } from 'node:fs';
import { probeSpool } from './spool.ts';
import type { Shipper } from './shipper.ts';

/** How often the spool is shipped and probed without change events. */
const TICK_MS = 1000;

export class SpoolWatch {
  private watchers: FSWatcher[] = [];
  private tick: NodeJS.Timeout | undefined;

  /** `files`: each spool file with its shipper; `dir`: the task's spool folder; `onFault`: the disk refused writes. */
  constructor(
    private readonly files: readonly (readonly [file: string, shipper: Shipper])[],
    private readonly dir: string,
    private readonly onFault: (message: string) => void,
  ) {}

  start(): void {
    for (const [file, shipper] of this.files) {
      try {
        const w = watch(file, () => shipper.kick());
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch {
        /* the tick below */
      }
    }
    this.tick = setInterval(() => {
      this.kickAll();
      const fault = probeSpool(this.dir);
      if (fault) this.onFault(fault);
    }, TICK_MS);
    this.tick.unref();
    this.kickAll();
  }

  stop(): void {
    if (this.tick) clearInterval(this.tick);
    for (const w of this.watchers.splice(0)) w.close();
  }

  private kickAll(): void {
    for (const [, shipper] of this.files) shipper.kick();
  }
}

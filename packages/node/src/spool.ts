import { closeSync, openSync, readSync, statSync, writeFileSync, writeSync } from 'node:fs';
import type { ShipAck, ShipBatch } from '@crawldeck/shared';

/** Longest log line kept; the rest of the line is dropped and a marker says so. */
export const MAX_LINE_BYTES = 64 * 1024;
/** Lines per shipped batch (the master accepts up to 100 000). */
export const MAX_BATCH_LINES = 20_000;
const CUT_MARKER = (n: number) => ` … [line cut at ${n} bytes]`;

/** Splits a byte stream into lines (\n, trailing \r dropped), cutting lines longer than MAX_LINE_BYTES. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(private emit: (line: string) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      if (!this.skipping) {
        const piece = chunk.subarray(start, end);
        if (this.size + piece.length > MAX_LINE_BYTES) {
          const keep = piece.subarray(0, MAX_LINE_BYTES - this.size);
          this.parts.push(keep);
          this.emitLine(true);
          this.skipping = nl === -1;
        } else {
          if (piece.length) this.parts.push(piece);
          this.size += piece.length;
          if (nl !== -1) this.emitLine(false);
        }
      } else if (nl !== -1) {
        this.skipping = false;
      }
      if (nl === -1) return;
      start = nl + 1;
    }
  }

  /** Emits what is left without a final newline. */
  end(): void {
    if (this.size > 0) this.emitLine(false);
    this.skipping = false;
  }

  private emitLine(cut: boolean): void {
    let line = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    this.size = 0;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    this.emit(cut ? line + CUT_MARKER(MAX_LINE_BYTES) : line);
  }
}

/** Appends lines to a spool file synchronously (one write per chunk of output). */
export class SpoolWriter {
  private fd: number;
  lines = 0;
  constructor(file: string) {
    this.fd = openSync(file, 'a');
  }
  write(lines: string[]): void {
    if (!lines.length) return;
    writeSync(this.fd, lines.map((l) => l.replace(/\n/g, ' ') + '\n').join(''));
    this.lines += lines.length;
  }
  close(): void {
    closeSync(this.fd);
  }
}

export interface ShipperState {
  bytes: number;
  lines: number;
}

export type PostBatch = (batch: ShipBatch) => Promise<ShipAck>;

/**
 * Ships a line spool file to the master in batches from the last acknowledged offset. Everything below
 * `state.lines` / `state.bytes` is stored on the master. `final` ships a trailing line without newline too.
 */
export class Shipper {
  private inflight: Promise<void> | undefined;
  private again = false;
  private final = false;
  private failures = 0;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];

  constructor(
    private file: string,
    readonly state: ShipperState,
    private post: PostBatch,
    private onAck: () => void,
    private onGone: () => void,
    private maxBatchBytes = 512 * 1024,
  ) {}

  kick(): void {
    if (this.stopped) return;
    if (this.inflight) {
      this.again = true;
      return;
    }
    this.inflight = this.run().finally(() => {
      this.inflight = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves when everything in the file (including a trailing partial line) is acknowledged. */
  drain(): Promise<void> {
    this.final = true;
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.kick();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const w of this.waiters.splice(0)) w();
  }

  private size(): number {
    try {
      return statSync(this.file).size;
    } catch {
      return 0;
    }
  }

  private read(): { lines: string[]; bytes: number } | undefined {
    const size = this.size();
    if (size <= this.state.bytes) return undefined;
    let want = Math.min(size - this.state.bytes, this.maxBatchBytes);
    const fd = openSync(this.file, 'r');
    try {
      for (;;) {
        const buf = Buffer.alloc(want);
        const n = readSync(fd, buf, 0, want, this.state.bytes);
        const data = buf.subarray(0, n);
        // At most MAX_BATCH_LINES lines per batch (the master refuses bigger ones), whatever their length.
        let lastNl = -1;
        for (let k = 0, pos = data.indexOf(10); pos !== -1; pos = data.indexOf(10, pos + 1)) {
          lastNl = pos;
          if (++k >= MAX_BATCH_LINES) break;
        }
        const capped = lastNl !== -1 && lastNl < data.lastIndexOf(10);
        if (lastNl === -1) {
          if (this.state.bytes + n >= size && this.final) {
            return { lines: [data.toString('utf8').replace(/\r$/, '')], bytes: n };
          }
          if (want < size - this.state.bytes) {
            want = Math.min(size - this.state.bytes, want * 2);
            continue;
          }
          return undefined;
        }
        let body = data.subarray(0, lastNl).toString('utf8');
        let bytes = lastNl + 1;
        if (!capped && this.final && this.state.bytes + n >= size && lastNl < n - 1) {
          body = data.toString('utf8');
          bytes = n;
        }
        return { lines: body.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)), bytes };
      }
    } finally {
      closeSync(fd);
    }
  }

  private async run(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const chunk = this.read();
      if (!chunk) {
        if (this.final) for (const w of this.waiters.splice(0)) w();
        return;
      }
      try {
        const ack = await this.post({ from: this.state.lines, lines: chunk.lines });
        this.failures = 0;
        if (ack.acked === this.state.lines + chunk.lines.length) {
          this.state.lines = ack.acked;
          this.state.bytes += chunk.bytes;
          this.onAck();
        } else if (ack.acked > this.state.lines) {
          // The master had part of this batch already (a lost answer): advance past the lines it has.
          const extra = ack.acked - this.state.lines;
          const consumed = chunk.lines.slice(0, extra).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
          this.state.lines = ack.acked;
          this.state.bytes += Math.min(consumed, chunk.bytes);
          this.onAck();
        } else {
          throw new Error(`master acknowledged ${ack.acked}, node is at ${this.state.lines}`);
        }
      } catch (err) {
        if ((err as { gone?: boolean }).gone) {
          this.onGone();
          this.stop();
          return;
        }
        this.failures++;
        const delay = Math.min(2000, 100 * 2 ** Math.min(this.failures, 5));
        await new Promise<void>((r) => {
          this.retryTimer = setTimeout(r, delay);
        });
      }
    }
  }
}

export function writeJson(file: string, value: unknown): void {
  writeFileSync(file, JSON.stringify(value));
}

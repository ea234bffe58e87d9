import {
  accessSync,
  appendFileSync,
  closeSync,
  constants,
  openSync,
  readSync,
  renameSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { ShipAck, ShipBatch } from '@crawldeck/shared';

/** Longest log line kept; the rest of the line is dropped and a marker says so. */
export const MAX_LINE_BYTES = 64 * 1024;
/** Lines per shipped batch (the master accepts up to 100 000). */
export const MAX_BATCH_LINES = 20_000;
const CUT_MARKER = (n: number) => ` … [line cut at ${n} bytes]`;

/** The text of one spooled line (without its newline): a trailing \r dropped, cut at MAX_LINE_BYTES with a marker. */
export function lineText(raw: Buffer): string {
  if (raw.length > MAX_LINE_BYTES) return raw.subarray(0, MAX_LINE_BYTES).toString('utf8') + CUT_MARKER(MAX_LINE_BYTES);
  const line = raw.toString('utf8');
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Appends lines of our own (node notices) to a spool file; newlines inside a line become spaces. */
export function appendLines(file: string, lines: string[]): void {
  if (lines.length) appendFileSync(file, lines.map((l) => l.replace(/\n/g, ' ') + '\n').join(''));
}

/** Error codes of a spool file system that cannot take more data. */
const DISK_CODES: Record<string, string> = {
  ENOSPC: 'is full (ENOSPC: no space left on device)',
  EDQUOT: 'is over its quota (EDQUOT)',
  EROFS: 'is read-only (EROFS)',
  EIO: 'has an I/O error (EIO)',
};

/** The message a task fails with when its spool cannot be written, or undefined for other errors. */
export function diskFaultMessage(err: unknown): string | undefined {
  const what = DISK_CODES[(err as NodeJS.ErrnoException | undefined)?.code ?? ''];
  return what ? `the node's spool disk ${what}: the task's output could not be stored` : undefined;
}

/**
 * Whether the spool folder can take more data: a read-only file system, or one without a free block, is a fault
 * (the task process gets the write errors; we only look, writing nothing).
 */
export function probeSpool(dir: string): string | undefined {
  try {
    accessSync(dir, constants.W_OK);
    const s = statfsSync(dir);
    if (s.blocks > 0 && s.bavail === 0) return diskFaultMessage({ code: 'ENOSPC' });
  } catch (err) {
    return diskFaultMessage(err);
  }
  return undefined;
}

/** Writes a JSON file whole or not at all (temp file + rename), so a kill mid-write leaves the previous version. */
export function writeJson(file: string, value: unknown): void {
  writeFileSync(file + '.tmp', JSON.stringify(value));
  renameSync(file + '.tmp', file);
}

export interface ShipperState {
  bytes: number;
  lines: number;
}

export type PostBatch = (batch: ShipBatch) => Promise<ShipAck>;

interface Chunk {
  lines: string[];
  /** Bytes of the spool file each line takes, its newline included. */
  sizes: number[];
}

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

  /**
   * The next batch from the acknowledged byte offset: whole lines only, but the trailing line without newline too
   * once `final`. A line longer than a batch is looked through for its end without being held in memory.
   */
  private read(): Chunk | undefined {
    const size = this.size();
    const from = this.state.bytes;
    if (size <= from) return undefined;
    const fd = openSync(this.file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size - from, this.maxBatchBytes));
      const n = readSync(fd, buf, 0, buf.length, from);
      const data = buf.subarray(0, n);
      const atEnd = from + n >= size;
      const chunk: Chunk = { lines: [], sizes: [] };
      let start = 0;
      while (chunk.lines.length < MAX_BATCH_LINES) {
        const nl = data.indexOf(10, start);
        if (nl === -1) break;
        chunk.lines.push(lineText(data.subarray(start, nl)));
        chunk.sizes.push(nl + 1 - start);
        start = nl + 1;
      }
      if (chunk.lines.length === MAX_BATCH_LINES || start === n) return chunk.lines.length ? chunk : undefined;
      if (atEnd) {
        if (this.final) {
          chunk.lines.push(lineText(data.subarray(start, n)));
          chunk.sizes.push(n - start);
        }
        return chunk.lines.length ? chunk : undefined;
      }
      if (chunk.lines.length) return chunk;
      // One line longer than a whole batch: ship its cut start once its end (or the end of the output) is known.
      const end = this.findNewline(fd, from + n, size);
      if (end === -1 && !this.final) return undefined;
      return { lines: [lineText(data.subarray(0, n))], sizes: [(end === -1 ? size : end + 1) - from] };
    } finally {
      closeSync(fd);
    }
  }

  /** Position of the first newline in the file between `pos` and `size`, or -1. */
  private findNewline(fd: number, pos: number, size: number): number {
    const buf = Buffer.alloc(64 * 1024);
    while (pos < size) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (n <= 0) return -1;
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl !== -1) return pos + nl;
      pos += n;
    }
    return -1;
  }

  private async run(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      try {
        const chunk = this.read();
        if (!chunk) {
          if (this.final) for (const w of this.waiters.splice(0)) w();
          return;
        }
        const ack = await this.post({ from: this.state.lines, lines: chunk.lines });
        this.failures = 0;
        if (ack.acked > this.state.lines) {
          // All of the batch, or part of it when the master had some lines already (an answer lost on the way).
          const taken = Math.min(ack.acked - this.state.lines, chunk.lines.length);
          this.state.lines += taken;
          this.state.bytes += chunk.sizes.slice(0, taken).reduce((a, b) => a + b, 0);
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

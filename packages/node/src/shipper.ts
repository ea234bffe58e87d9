/**
 * Ships a spool file (a task's log or items) to the master in batches from the last acknowledged offset, several
 * batches in flight at once. The master stores each batch exactly once: lines below its stored offset are skipped,
 * a batch that starts beyond it waits there for its predecessor (or is answered with the stored offset). The
 * acknowledged offset only ever moves over batches the master confirmed, in file order; after any failure every
 * batch still in flight is settled and shipping starts again from that offset.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { ShipAck, ShipBatch } from '@crawldeck/shared';
import { MAX_BATCH_LINES, MAX_LINE_BYTES, lineText } from './spool.ts';

export interface ShipperState {
  bytes: number;
  lines: number;
}

export type PostBatch = (batch: ShipBatch) => Promise<ShipAck>;

/**
 * What a shipper does with a long line. A log line is cut at `maxBytes` with a marker. An item is shipped whole
 * up to `maxBytes` (one longer than a batch alone in its own), and one beyond is refused: `refused` hears of it
 * (line number and size; again when the line is read again after a failure) and the master gets an empty line in
 * its place, which stores nothing but keeps the item numbers.
 */
export interface LineRule {
  maxBytes: number;
  refused?: (line: number, bytes: number) => void;
}

const LOG_LINES: LineRule = { maxBytes: MAX_LINE_BYTES };

/** Batches of one spool file in flight at once. */
export const BATCHES_IN_FLIGHT = 4;

interface Chunk {
  lines: string[];
  /** Bytes of the spool file each line takes, its newline included. */
  sizes: number[];
}

/** A batch sent and not yet answered; its answer never rejects (a failure is carried in `error`). */
interface Sent {
  fromLines: number;
  fromBytes: number;
  sizes: number[];
  reply: Promise<{ ack?: ShipAck; error?: unknown }>;
  /** One line longer than a batch: no other batch is read while it is in flight, so memory stays bounded. */
  alone: boolean;
}

const isGone = (err: unknown) => !!(err as { gone?: boolean } | undefined)?.gone;

/**
 * The lines of `data`, whole lines of `sizes` bytes each (the last one without its newline when it has none), as
 * lineText reads each: the bytes decoded once and cut at the newlines. A newline byte is never part of a longer
 * UTF-8 character, so a malformed character decodes the same at a line's end as within the whole. Only a line
 * over the longest kept length, or one ending in a carriage return, is read again on its own.
 */
export function decodeLines(data: Buffer, sizes: readonly number[], max = MAX_LINE_BYTES): string[] {
  const lines = data.toString('utf8').split('\n');
  if (lines.length > sizes.length) lines.pop();
  let at = 0;
  for (let i = 0; i < sizes.length; i++) {
    const line = lines[i];
    if (sizes[i] > max || line.charCodeAt(line.length - 1) === 13) {
      const nl = data[at + sizes[i] - 1] === 10 ? 1 : 0;
      lines[i] = lineText(data.subarray(at, at + sizes[i] - nl), max);
    }
    at += sizes[i];
  }
  return lines;
}

/** Everything below `state.lines` / `state.bytes` is stored on the master. `final` ships a trailing line too. */
export class Shipper {
  private running: Promise<void> | undefined;
  private again = false;
  private final = false;
  private failures = 0;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  /** Batches sent and not yet answered, in file order, the first starting at the acknowledged offset. */
  private window: Sent[] = [];
  /** Where the next batch to send starts. */
  private next: ShipperState;

  constructor(
    private file: string,
    readonly state: ShipperState,
    private post: PostBatch,
    private onAck: () => void,
    private onGone: () => void,
    private maxBatchBytes = 512 * 1024,
    private depth = BATCHES_IN_FLIGHT,
    private rule: LineRule = LOG_LINES,
  ) {
    this.next = { ...state };
    // Items are never cut: a batch holds only lines within the limit, a longer line is looked at on its own.
    if (rule.refused) this.maxBatchBytes = Math.min(maxBatchBytes, rule.maxBytes);
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves when everything in the file (including a trailing partial line) is acknowledged. */
  drain(): Promise<void> {
    if (this.stopped) return Promise.resolve();
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

  private async run(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      try {
        this.fill();
        const head = this.window[0];
        if (!head) {
          if (this.final) for (const w of this.waiters.splice(0)) w();
          return;
        }
        await this.settleHead(head);
        this.failures = 0;
      } catch (err) {
        await this.settleAll();
        if (this.stopped) return;
        if (isGone(err)) return this.gone();
        this.failures++;
        const delay = Math.min(2000, 100 * 2 ** Math.min(this.failures, 5));
        await new Promise<void>((r) => {
          this.retryTimer = setTimeout(r, delay);
        });
      }
    }
  }

  /** Sends batches from `next` until the window is full or the file has no more to send. */
  private fill(): void {
    while (this.window.length < this.depth && !this.window.some((s) => s.alone)) {
      const chunk = this.read(this.next.bytes, this.next.lines);
      if (!chunk) return;
      const batch = { from: this.next.lines, lines: chunk.lines };
      const reply = this.post(batch).then(
        (ack) => ({ ack }),
        (error: unknown) => ({ error }),
      );
      const alone = !!this.rule.refused && chunk.sizes[0] > this.maxBatchBytes;
      this.window.push({ fromLines: this.next.lines, fromBytes: this.next.bytes, sizes: chunk.sizes, reply, alone });
      this.next = {
        lines: this.next.lines + chunk.lines.length,
        bytes: this.next.bytes + chunk.sizes.reduce((a, b) => a + b, 0),
      };
    }
  }

  /** The answer to the oldest batch: the acknowledged offset moves over it, or the error is thrown. */
  private async settleHead(head: Sent): Promise<void> {
    const { ack, error } = await head.reply;
    if (error !== undefined) throw error;
    const acked = ack!.acked;
    if (acked >= head.fromLines + head.sizes.length) {
      this.advanceTo(acked);
      this.window.shift();
      return;
    }
    // The master stored only part of the batch, or none of it: ship again from where it is.
    if (acked <= this.state.lines) throw new Error(`master acknowledged ${acked}, node is at ${this.state.lines}`);
    this.advanceTo(acked);
    await this.settleAll();
  }

  /** After a failure: waits for every batch still in flight, keeps what they stored, ships again from there. */
  private async settleAll(): Promise<void> {
    const replies = await Promise.all(this.window.map((s) => s.reply));
    let gone = false;
    for (const r of replies) {
      if (r.ack) this.advanceTo(r.ack.acked);
      gone ||= isGone(r.error);
    }
    this.window = [];
    this.next = { ...this.state };
    if (gone && !this.stopped) this.gone();
  }

  private gone(): void {
    this.onGone();
    this.stop();
  }

  /**
   * Moves the acknowledged offset to `acked` lines, as far as the batches sent cover it (a master that has more,
   * from an answer lost before an earlier run of the node saved its offsets, gets those lines again and skips them).
   */
  private advanceTo(acked: number): void {
    const before = this.state.lines;
    for (const s of this.window) {
      if (acked <= s.fromLines) break;
      const taken = Math.min(acked - s.fromLines, s.sizes.length);
      if (s.fromLines + taken <= this.state.lines) continue;
      this.state.lines = s.fromLines + taken;
      this.state.bytes = s.fromBytes + s.sizes.slice(0, taken).reduce((a, b) => a + b, 0);
    }
    if (this.state.lines > before) this.onAck();
  }

  private size(): number {
    try {
      return statSync(this.file).size;
    } catch {
      return 0;
    }
  }

  /**
   * The batch starting at byte `from` (line `lineNo`): whole lines only, but the trailing line without newline too
   * once `final`. A line longer than a batch is looked through for its end without being held in memory.
   */
  private read(from: number, lineNo: number): Chunk | undefined {
    const size = this.size();
    if (size <= from) return undefined;
    const fd = openSync(this.file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size - from, this.maxBatchBytes));
      const n = readSync(fd, buf, 0, buf.length, from);
      const data = buf.subarray(0, n);
      const sizes: number[] = [];
      let start = 0;
      while (sizes.length < MAX_BATCH_LINES) {
        const nl = data.indexOf(10, start);
        if (nl === -1) break;
        sizes.push(nl + 1 - start);
        start = nl + 1;
      }
      const atEnd = from + n >= size;
      if (sizes.length < MAX_BATCH_LINES && start < n && atEnd && this.final) {
        sizes.push(n - start);
        start = n;
      }
      if (sizes.length) return { lines: decodeLines(data.subarray(0, start), sizes, this.rule.maxBytes), sizes };
      if (atEnd) return undefined;
      // One line longer than a whole batch: shipped once its end (or the end of the output) is known.
      const end = this.findNewline(fd, from + n, size);
      if (end === -1 && !this.final) return undefined;
      return this.longLine(fd, { from, lineNo, head: data, text: (end === -1 ? size : end) - from, nl: end !== -1 });
    } finally {
      closeSync(fd);
    }
  }

  /**
   * A line longer than a batch, `text` bytes from `from` without its newline (`nl`: it has one; `head`: its start):
   * a log line's cut start; an item within the limit read whole, a longer one refused.
   */
  private longLine(fd: number, line: { from: number; lineNo: number; head: Buffer; text: number; nl: boolean }): Chunk {
    const { from, lineNo, head, text } = line;
    const size = text + (line.nl ? 1 : 0);
    const { maxBytes, refused } = this.rule;
    if (!refused) return { lines: [lineText(head, maxBytes)], sizes: [size] };
    if (text > maxBytes) {
      refused(lineNo, text);
      return { lines: [''], sizes: [size] };
    }
    const whole = Buffer.alloc(text);
    for (let got = 0; got < text;) {
      const n = readSync(fd, whole, got, text - got, from + got);
      if (n <= 0) throw new Error(`the items file ended inside item ${lineNo + 1}`);
      got += n;
    }
    return { lines: [lineText(whole, maxBytes)], sizes: [size] };
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
}

import { accessSync, appendFileSync, constants, renameSync, statfsSync, writeFileSync } from 'node:fs';

/** Longest log line kept; the rest of the line is dropped and a marker says so. */
export const MAX_LINE_BYTES = 64 * 1024;
/** Lines per shipped batch (the master accepts up to 100 000). */
export const MAX_BATCH_LINES = 20_000;
const CUT_MARKER = (n: number) => ` … [line cut at ${n} bytes]`;

/** The text of one spooled line (without its newline): a trailing \r dropped, cut at `max` bytes with a marker. */
export function lineText(raw: Buffer, max = MAX_LINE_BYTES): string {
  if (raw.length > max) return raw.subarray(0, max).toString('utf8') + CUT_MARKER(max);
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

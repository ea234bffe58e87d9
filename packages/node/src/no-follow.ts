/**
 * Files the node reads or writes where a task could have planted a link: never followed. A read takes only a
 * regular file; a write makes a new file (never one that was there), so a link or file put in its place makes it
 * fail instead of writing through it.
 */
import { closeSync, constants, fchownSync, fstatSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { TaskIdentity } from './sandbox.ts';

/** Reads a regular file without following a link (throws for a link, a folder or a missing file). */
export function readNoFollow(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

export interface NewFileOptions {
  /** Given to this identity (a build's user) once written. */
  owner?: TaskIdentity;
  /** Flushed to the disk before it is closed (a file that must survive a crash whole). */
  sync?: boolean;
}

/** Creates `file`, which must not exist, without following a link, and writes `data` into it. */
export function writeNewNoFollow(file: string, data: string, mode: number, opts: NewFileOptions = {}): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    writeSync(fd, data);
    if (opts.owner) fchownSync(fd, opts.owner.uid, opts.owner.gid);
    if (opts.sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

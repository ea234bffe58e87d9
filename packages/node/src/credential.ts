/**
 * The node's own key for the master, kept in its data dir: given by the master when the node joined with the
 * shared key (or when an administrator rotated it), used for every call from then on, also after restarts.
 */
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { readNoFollow, writeNewNoFollow } from './no-follow.ts';

const FILE = 'node-credential';

/** The kept key, or undefined when the node has none yet (a link in its place is not followed). */
export function readOwnKey(dataDir: string): string | undefined {
  let key: string;
  try {
    key = readNoFollow(path.join(dataDir, FILE)).trim();
  } catch {
    return undefined;
  }
  return key || undefined;
}

/**
 * Keeps the key readable by the node's user alone: written to a new file (never through a link, never a file that
 * was there) and moved over the old one, so a crash leaves the old key or the new one, never half of one.
 */
export function saveOwnKey(dataDir: string, key: string): void {
  const tmp = path.join(dataDir, `${FILE}.${process.pid}.tmp`);
  rmSync(tmp, { force: true });
  writeNewNoFollow(tmp, key + '\n', 0o600, { sync: true });
  renameSync(tmp, path.join(dataDir, FILE));
}

/** The key the node presents: its own once it has one, else the shared key, which only lets it join. */
export class NodeKeys {
  private own: string | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly shared: string,
    private readonly master: { useKey(key: string): void },
  ) {
    this.own = readOwnKey(dataDir);
    master.useKey(this.own ?? shared);
  }

  /** The master gave the node its own key: used from now on, and kept (throws when it could not be kept). */
  keep(key: string): void {
    this.own = key;
    this.master.useKey(key);
    saveOwnKey(this.dataDir, key);
  }

  /**
   * The master refused the node's own key (a master whose store never knew it): the node tries once to join with
   * the shared key, which the master refuses too when it knows the node (its key revoked). False: nothing to try.
   */
  fallBack(): boolean {
    if (this.own === undefined || !this.shared) return false;
    this.own = undefined;
    this.master.useKey(this.shared);
    return true;
  }
}

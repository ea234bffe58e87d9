import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import type { GitConflict, GitSyncChanges } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { deletePath, listFiles, readFile, writeFile } from '../spiders/files.store.ts';

/**
 * Sync as a three-way merge. The common base is the upstream commit of the previous sync; "mine" is what the
 * spider's store holds now (console edits included); "theirs" is the new upstream commit. Contents are compared
 * by git blob id, so the base never has to be checked out: `git ls-tree` of the base and of the new commit says
 * what upstream changed, and the store's files are hashed the way git hashes blobs.
 *
 *   upstream changed, store still as the base  → take theirs (update, add or delete)
 *   upstream changed, store changed otherwise   → conflict: the store's version stays, nothing is overwritten
 *   upstream unchanged                          → the store's version stays (console edits are kept)
 */

const run = promisify(execFile);

/** A spider's local Git cache and the PATH its git processes get (the master's, from its configuration). */
export interface LocalCache {
  dir: string;
  childPath: string;
}

/** git for local reads of the cache only (no network, no credentials): no system or user config, no hooks. */
function localGit({ dir, childPath }: LocalCache, args: string[], maxBuffer = 256 * 1024 * 1024) {
  return run('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args], {
    cwd: dir,
    encoding: 'buffer',
    maxBuffer,
    env: {
      PATH: childPath,
      HOME: dir,
      LANG: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
    },
  });
}

/** The id git gives a blob with this content. */
export function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

const COMMIT = /^[0-9a-f]{40,64}$/;

/** Path → blob id of the regular files of a commit (links and submodules are not spider files); null when unknown. */
export async function treeBlobs(cache: LocalCache, commit: string): Promise<Map<string, string> | null> {
  if (!COMMIT.test(commit)) return null;
  let out: Buffer;
  try {
    out = (await localGit(cache, ['ls-tree', '-r', '-z', '--full-tree', commit])).stdout;
  } catch {
    return null; // the commit is not in the cache (history rewritten upstream, or a new cache)
  }
  const blobs = new Map<string, string>();
  for (const entry of out.toString('utf8').split('\0')) {
    const m = /^(\d{6}) blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (m && m[1] !== '120000') blobs.set(m[3], m[2]);
  }
  return blobs;
}

/** The content of a file at a commit of the cache, undefined when the commit has no such file. */
export async function blobAt(cache: LocalCache, commit: string, path: string): Promise<Buffer | undefined> {
  if (!COMMIT.test(commit)) return undefined;
  const blobs = await treeBlobs(cache, commit);
  const id = blobs?.get(path);
  if (!id) return undefined;
  return (await localGit(cache, ['cat-file', 'blob', id])).stdout;
}

export async function storedFiles(db: Kysely<DB>, spiderId: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await listFiles(db, spiderId)) {
    if (!entry.is_dir) files.set(entry.path, (await readFile(db, spiderId, entry.path)) ?? Buffer.alloc(0));
  }
  return files;
}

export interface MergeInput {
  mine: Map<string, Buffer>;
  /** The new upstream commit's files as checked out. */
  theirs: Map<string, Buffer>;
  baseBlobs: Map<string, string>;
  theirBlobs: Map<string, string>;
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

/** The merged files and what happened to each path. Pure: no store, no git. */
export function mergeTrees({ mine, theirs, baseBlobs, theirBlobs }: MergeInput): {
  files: Map<string, Buffer>;
  changes: GitSyncChanges;
} {
  const files = new Map(mine);
  const changes: GitSyncChanges = { updated: [], added: [], deleted: [], kept: [], conflicts: [] };
  const mineId = (p: string) => (mine.has(p) ? gitBlobId(mine.get(p)!) : undefined);
  const paths = new Set([...baseBlobs.keys(), ...theirBlobs.keys(), ...mine.keys()]);
  for (const p of sorted(paths)) {
    const base = baseBlobs.get(p);
    const their = theirBlobs.get(p);
    const my = mineId(p);
    if (base === their) {
      // upstream left it alone: whatever the console did stays
      if (my !== base) changes.kept.push(p);
      continue;
    }
    if (my === their) continue; // both sides made the same change
    if (my === base) {
      if (their === undefined) {
        files.delete(p);
        changes.deleted.push(p);
      } else {
        files.set(p, theirs.get(p) ?? Buffer.alloc(0));
        (base === undefined ? changes.added : changes.updated).push(p);
      }
      continue;
    }
    const kind: GitConflict['kind'] =
      their === undefined ? 'deleted-upstream' : my === undefined ? 'deleted-here' : 'both';
    changes.conflicts.push({ path: p, kind });
  }
  return { files, changes };
}

/** A merging sync: null when the base commit is unknown to the cache, and the branch is then taken as it is. */
export async function mergeWithBase(
  db: Kysely<DB>,
  spiderId: string,
  cache: LocalCache,
  base: string,
  head: string,
  theirs: Map<string, Buffer>,
) {
  const [baseBlobs, theirBlobs] = await Promise.all([treeBlobs(cache, base), treeBlobs(cache, head)]);
  if (!baseBlobs || !theirBlobs) return null;
  return mergeTrees({ mine: await storedFiles(db, spiderId), theirs, baseBlobs, theirBlobs });
}

/**
 * One conflict settled: `mine` leaves the spider's file as it is (the next sync sees it as a console edit),
 * `theirs` writes the version of the last synced upstream commit, or deletes the file when that commit has none.
 */
export async function resolveConflict(
  db: Kysely<DB>,
  spiderId: string,
  cache: LocalCache,
  syncedCommit: string,
  path: string,
  choice: 'mine' | 'theirs',
): Promise<{ path: string; choice: 'mine' | 'theirs'; exists: boolean }> {
  if (choice === 'mine') return { path, choice, exists: (await readFile(db, spiderId, path)) !== undefined };
  const content = await blobAt(cache, syncedCommit, path);
  if (content === undefined) {
    if ((await readFile(db, spiderId, path)) !== undefined) await deletePath(db, spiderId, path);
    return { path, choice, exists: false };
  }
  await writeFile(db, spiderId, path, content);
  return { path, choice, exists: true };
}

import { Type, type Static } from '@sinclair/typebox';
import { Str } from './bounds.ts';
import { IsoTime, Nullable } from './responses.ts';

/** Git spiders: remote URL, branch and credentials of a spider, sync and reset, import of a repository. */

export const GitCommit = Type.Object({
  hash: Type.String(),
  message: Type.String(),
  author: Type.String(),
  /** ISO time of the commit. */
  date: Type.String(),
});
export type GitCommit = Static<typeof GitCommit>;

export const GitConflict = Type.Object({
  path: Type.String(),
  /** both: changed on both sides; deleted-upstream: changed here, deleted upstream; deleted-here: deleted here, changed upstream. */
  kind: Type.Union([Type.Literal('both'), Type.Literal('deleted-upstream'), Type.Literal('deleted-here')]),
});
export type GitConflict = Static<typeof GitConflict>;

/**
 * A sync merges with the commit of the previous sync as the common base: files changed only upstream are
 * updated, added or deleted; files changed only in the console are kept; files changed on both sides differently
 * are conflicts, left as they are in the console until the user keeps them or takes the upstream version.
 */
export const GitSyncChanges = Type.Object({
  updated: Type.Array(Type.String()),
  added: Type.Array(Type.String()),
  deleted: Type.Array(Type.String()),
  /** Files edited, added or deleted in the console that the upstream commits did not touch. */
  kept: Type.Array(Type.String()),
  conflicts: Type.Array(GitConflict),
});
export type GitSyncChanges = Static<typeof GitSyncChanges>;

export const GitSyncResult = Type.Object({
  commit: Nullable(GitCommit),
  branch: Type.String(),
  branches: Type.Array(Type.String()),
  /** Files written into the spider's store by this sync. */
  files: Type.Number(),
  /** ISO time of this sync. */
  sync_ts: Type.String(),
  /** What a merging sync did per file; absent for a reset or a first sync, which take the branch as it is. */
  changes: Type.Optional(GitSyncChanges),
});
export type GitSyncResult = Static<typeof GitSyncResult>;

export const GitResolveBody = Type.Object({
  path: Str(4096, { minLength: 1 }),
  /** mine: the console's version stays; theirs: the version of the last synced upstream commit replaces it. */
  choice: Type.Union([Type.Literal('mine'), Type.Literal('theirs')]),
});
export type GitResolveBody = Static<typeof GitResolveBody>;

/** The answer of POST /spiders/{id}/git/resolve: the file as the choice left it. */
export const GitResolveAnswer = Type.Object({
  status: Type.Literal('ok'),
  message: Type.String(),
  data: Type.Object({
    path: Type.String(),
    choice: Type.Union([Type.Literal('mine'), Type.Literal('theirs')]),
    exists: Type.Boolean(),
  }),
});

export const GitInfo = Type.Object({
  /** Remote URL without credentials. */
  remote: Type.String(),
  branch: Type.String(),
  branches: Type.Array(Type.String()),
  commit: Nullable(GitCommit),
  /** ISO time of the last successful sync, null when never synced. */
  last_sync_ts: IsoTime,
  /** Message of the last failed sync (auto-sync included), '' when the last one succeeded. */
  last_error: Type.String(),
  auto_sync: Type.Boolean(),
});
export type GitInfo = Static<typeof GitInfo>;

/** POST /spiders/import/github: the new spider (as the spiders list shows it) with the outcome of its first sync. */
export const ImportedSpider = Type.Object(
  {
    _id: Type.String(),
    git: GitSyncResult,
    /**
     * The spiders the import made: one, or one per Scrapy project of a repository holding several (each with that
     * project's folder as its source folder; the first is the spider this answer describes).
     */
    projects: Type.Array(Type.Object({ _id: Type.String(), name: Type.String(), src: Type.String() })),
  },
  { additionalProperties: true },
);

export const ImportBody = Type.Object({
  url: Str(2000, { minLength: 1 }),
  type: Type.Optional(Str(20, { default: 'github' })),
  branch: Type.Optional(Str(250)),
  name: Type.Optional(Str(200)),
});
export type ImportBody = Static<typeof ImportBody>;

export const GitSyncBody = Type.Object({ branch: Type.Optional(Str(250)) });

/**
 * Checks a remote URL against the allow-list: `https://`, `http://`, `ssh://` and scp-like `user@host:path`.
 * Everything else — `ext::`, `file://`, `fd::`, local paths, option injection (a leading `-`), control
 * characters — is refused. Returns the reason, or null when the URL is acceptable.
 */
export function gitUrlProblem(url: string): string | null {
  const u = url.trim();
  if (!u) return 'the Git URL is empty';
  if (u.length > 2000) return 'the Git URL is too long';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(u)) return 'the Git URL must not contain spaces or control characters';
  if (u.startsWith('-')) return 'the Git URL must not start with "-"';
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(u)) return 'remote helper URLs (like ext::) are not allowed';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(u);
  if (scheme) {
    const s = scheme[1].toLowerCase();
    if (!['https', 'http', 'ssh'].includes(s))
      return `the ${s}:// scheme is not allowed; use https://, http://, ssh:// or git@host:path`;
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      return 'the Git URL is not a valid URL';
    }
    if (!parsed.hostname) return 'the Git URL has no host';
    if (parsed.hostname.startsWith('-')) return 'the Git URL host must not start with "-"';
    if (parsed.pathname.length < 2) return 'the Git URL has no repository path';
    return null;
  }
  // scp-like: [user@]host:path — require user@ so a local path like "a:b" is not taken for a host
  const scp = /^([A-Za-z0-9._~-]+)@([A-Za-z0-9.-]+):(.+)$/.exec(u);
  if (scp) {
    if (scp[2].startsWith('-') || scp[1].startsWith('-')) return 'the Git URL host must not start with "-"';
    if (scp[3].startsWith('-')) return 'the Git URL path must not start with "-"';
    return null;
  }
  return 'only https://, http://, ssh:// and git@host:path URLs are allowed';
}

/** A branch name safe to pass to git (refuses option-like and ref-syntax abuse). */
export function gitBranchProblem(branch: string): string | null {
  if (!branch) return 'the branch is empty';
  if (branch.startsWith('-')) return 'the branch must not start with "-"';
  if (
    !/^[A-Za-z0-9._/-]+$/.test(branch) ||
    branch.includes('..') ||
    branch.endsWith('/') ||
    branch.endsWith('.lock') ||
    branch.startsWith('/')
  ) {
    return `"${branch}" is not a valid branch name`;
  }
  return null;
}

/** Name for a spider imported from a repository URL: the last path segment without `.git`. */
export function repoNameFromUrl(url: string): string {
  const last = url.trim().replace(/\/+$/, '').split(/[/:]/).pop() ?? 'repo';
  return last.replace(/\.git$/, '') || 'repo';
}

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import type { Kysely } from 'kysely';
import { gitBranchProblem, gitUrlProblem, type GitCommit, type GitInfo, type GitSyncResult } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { HttpError, badRequest } from '../../http/errors.ts';
import { decryptSecret } from '../../crypto/secrets.ts';
import { replaceFiles } from '../spiders/files.store.ts';
import { mergeWithBase } from './sync-merge.ts';
import type { SpiderRow } from '../spiders/spiders.store.ts';
import { KeyedMutex, walkFiles } from '../scrapy/workspace.ts';
import { findGitState, saveGitFailure, saveGitSync, setSpiderBranch } from './git.store.ts';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { pinGitRemote, publicUrl, urlCredentials, type PinnedRemote } from '../../outbound/git.ts';

export { publicUrl };

/**
 * Git spiders: a cached working copy per spider under `<dataDir>/git/<spiderId>` (a cache only: the store holds
 * the files the nodes get). Safety: the URL allow-list of `gitUrlProblem` (https, http, ssh, git@host:path), URLs
 * always after `--`, `GIT_ALLOW_PROTOCOL=http:https:ssh`, no terminal prompts, no system/global git config,
 * credentials only through a temporary askpass script reading them from the environment of that one git process
 * (never in argv, URLs, logs or answers), symbolic links in a checkout ignored, size limits of zip uploads.
 */

export const gitFailed = (message: string) => new HttpError(422, message);

/** What Git work needs from the master's configuration. */
export interface GitSettings {
  dataDir: string;
  timeoutMs: number;
  /** Limits of a checkout, the same as of an uploaded zip. */
  maxEntries: number;
  maxBytes: number;
  /** PATH of the git processes. */
  childPath: string;
}

export interface GitSource {
  url: string;
  branch: string;
  username: string;
  password: string;
}

/** Source of a stored spider; 400 when it has no URL or the URL is refused. */
export function sourceOf(dataDir: string, row: SpiderRow): GitSource {
  if (!row.git_url) throw badRequest('this spider has no Git URL; set one in its Git settings first');
  let password = '';
  if (row.git_password_enc) {
    try {
      password = decryptSecret(dataDir, row.git_password_enc);
    } catch {
      throw gitFailed('the stored Git password cannot be decrypted (was the secret key changed?); enter it again');
    }
  }
  return checkSource({ url: row.git_url, branch: row.git_branch, username: row.git_username, password });
}

export function checkSource(src: GitSource): GitSource {
  const problem = gitUrlProblem(src.url);
  if (problem) throw badRequest(problem);
  const branch = src.branch.trim();
  if (branch) {
    const bp = gitBranchProblem(branch);
    if (bp) throw badRequest(bp);
  }
  return { ...src, url: src.url.trim(), branch };
}

/** Credentials embedded in an https URL (rows stored before they were split off) go to the askpass channel. */
function splitCredentials(src: GitSource): GitSource {
  const found = urlCredentials(src.url);
  return { ...src, url: found.url, username: src.username || found.username, password: src.password || found.password };
}

function redact(message: string, src: GitSource): string {
  let out = message.replace(/(https?|ssh):\/\/[^@/\s]*@/gi, '$1://***@');
  if (src.password) out = out.split(src.password).join('***');
  // git's noise lines are not useful in a toast; keep the fatal/error lines
  const lines = out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const important = lines.filter((l) => /^(fatal|error|remote):/i.test(l));
  return (important.length ? important : lines).slice(-3).join(' ') || 'git failed';
}

class GitRunner {
  private home: string;
  private git: SimpleGit;
  constructor(
    private dir: string,
    private src: GitSource,
    settings: GitSettings,
    pin: PinnedRemote = { config: [], sshOptions: [] },
  ) {
    this.home = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-git-'));
    const askpass = path.join(this.home, 'askpass.sh');
    writeFileSync(
      askpass,
      '#!/bin/sh\ncase "$1" in\n  Username*) printf "%s\\n" "$CRAWLDECK_GIT_USERNAME" ;;\n  *) printf "%s\\n" "$CRAWLDECK_GIT_PASSWORD" ;;\nesac\n',
    );
    chmodSync(askpass, 0o700);
    mkdirSync(dir, { recursive: true });
    const env: Record<string, string> = {
      PATH: settings.childPath,
      HOME: this.home,
      LANG: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: askpass,
      SSH_ASKPASS: askpass,
      GIT_ALLOW_PROTOCOL: 'http:https:ssh',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_SSH_COMMAND: ['ssh', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=accept-new', ...pin.sshOptions].join(
        ' ',
      ),
      CRAWLDECK_GIT_USERNAME: src.username,
      CRAWLDECK_GIT_PASSWORD: src.password,
    };
    this.git = simpleGit({
      baseDir: dir,
      timeout: { block: settings.timeoutMs },
      allowEnvironment: Object.keys(env),
      config: [
        'credential.helper=',
        'core.hooksPath=/dev/null',
        'core.symlinks=false',
        'core.fsmonitor=false',
        'submodule.recurse=false',
        ...pin.config,
      ],
      unsafe: {
        allowUnsafeConfigPaths: true,
        allowUnsafeAskPass: true,
        allowUnsafeSshCommand: true,
        allowUnsafeCredentialHelper: true,
        allowUnsafeHooksPath: true,
        allowUnsafeFsMonitor: true,
      },
    } as Parameters<typeof simpleGit>[0]).env(env);
  }

  async raw(args: string[]): Promise<string> {
    try {
      return await this.git.raw(args);
    } catch (err) {
      throw gitFailed(`git ${args[0]} failed: ${redact((err as Error).message, this.src)}`);
    }
  }

  dispose() {
    rmSync(this.home, { recursive: true, force: true });
  }
}

interface Fetched {
  dir: string;
  branch: string;
  branches: string[];
  commit: GitCommit;
}

/** Clones (first time or after a URL change) or fetches, then hard-resets the cache to origin/<branch>. */
async function fetchToCache(
  cacheDir: string,
  source: GitSource,
  settings: GitSettings,
  policy: AddressPolicy,
): Promise<Fetched> {
  const src = splitCredentials(source);
  const remote = publicUrl(src.url);
  const pin = await pinGitRemote(remote, policy);
  const marker = path.join(cacheDir, '.crawldeck-remote');
  const fresh =
    !existsSync(path.join(cacheDir, '.git')) || !existsSync(marker) || readFileSync(marker, 'utf8') !== remote;
  if (fresh) rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  const g = new GitRunner(cacheDir, src, settings, pin);
  try {
    if (fresh) {
      await g.raw(['init', '--quiet']);
      await g.raw(['remote', 'add', 'origin', '--', remote]);
      writeFileSync(marker, remote);
    }
    await g.raw(['fetch', '--prune', '--no-tags', '--quiet', 'origin', '+refs/heads/*:refs/remotes/origin/*']);
    const branches = (await g.raw(['for-each-ref', '--format=%(refname:strip=3)', 'refs/remotes/origin/']))
      .split('\n')
      .map((b) => b.trim())
      .filter((b) => b && b !== 'HEAD')
      .sort();
    if (!branches.length) throw gitFailed('the repository has no branches (is it empty?)');
    let branch = src.branch;
    if (!branch) {
      const head = await g.raw(['ls-remote', '--symref', 'origin', 'HEAD']).catch(() => '');
      const m = /ref: refs\/heads\/(\S+)\s+HEAD/.exec(head);
      branch =
        m && branches.includes(m[1])
          ? m[1]
          : branches.includes('main')
            ? 'main'
            : branches.includes('master')
              ? 'master'
              : branches[0];
    }
    if (!branches.includes(branch))
      throw gitFailed(`branch "${branch}" does not exist on the remote (branches: ${branches.join(', ')})`);
    await g.raw(['checkout', '--quiet', '--force', '-B', branch, `refs/remotes/origin/${branch}`]);
    await g.raw(['reset', '--quiet', '--hard', `refs/remotes/origin/${branch}`]);
    await g.raw(['clean', '-qfdx', '-e', '.crawldeck-remote']);
    const log = await g.raw(['log', '-1', '--format=%H%x00%s%x00%an <%ae>%x00%cI']);
    const [hash, message, author, date] = log.trim().split('\0');
    return { dir: cacheDir, branch, branches, commit: { hash, message, author, date } };
  } finally {
    g.dispose();
  }
}

const IGNORE = /(^|\/)\.git(\/|$)|^\.crawldeck-remote$/;

function readCheckout(dir: string, { maxEntries, maxBytes }: GitSettings): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let bytes = 0;
  for (const rel of walkFiles(dir, IGNORE)) {
    const content = readFileSync(path.join(dir, rel));
    bytes += content.length;
    if (files.size >= maxEntries) throw gitFailed(`the repository has more than ${maxEntries} files`);
    if (bytes > maxBytes) throw gitFailed(`the repository is larger than ${maxBytes} bytes`);
    files.set(rel, content);
  }
  return files;
}

const locks = new KeyedMutex();

export function cacheDirOf(dataDir: string, spiderId: string): string {
  return path.join(dataDir, 'git', spiderId);
}

/**
 * Sync (mode 'sync'): brings the remote's new commits into the store; console edits to files the remote did not
 * change since the last sync are kept. Reset (mode 'reset'): the store becomes exactly the remote tree.
 */
export async function syncSpider(
  db: Kysely<DB>,
  settings: GitSettings,
  row: SpiderRow,
  mode: 'sync' | 'reset',
  policy: AddressPolicy,
  branchOverride?: string,
): Promise<GitSyncResult> {
  const source = sourceOf(settings.dataDir, row);
  if (branchOverride !== undefined && branchOverride !== '') {
    const bp = gitBranchProblem(branchOverride);
    if (bp) throw badRequest(bp);
    source.branch = branchOverride;
  }
  return locks.run(row.id, async () => {
    const now = Date.now();
    try {
      const state = await findGitState(db, row.id);
      const fetched = await fetchToCache(cacheDirOf(settings.dataDir, row.id), source, settings, policy);
      const remoteTree = readCheckout(fetched.dir, settings);
      const sameSource = state && state.remote === publicUrl(source.url) && state.branch === fetched.branch;
      // A sync merges with the last synced commit as the base (sync-merge.ts); a reset, a first sync or a base
      // the cache no longer has takes the branch as it is.
      const merge =
        mode === 'sync' && sameSource && state.base_commit
          ? await mergeWithBase(
              db,
              row.id,
              { dir: fetched.dir, childPath: settings.childPath },
              state.base_commit,
              fetched.commit.hash,
              remoteTree,
            )
          : null;
      const files = merge?.files ?? remoteTree;
      const res = await replaceFiles(
        db,
        row.id,
        [...files].map(([p, content]) => ({ path: p, content })),
      );
      const values = {
        remote: publicUrl(source.url),
        branch: fetched.branch,
        branches: JSON.stringify(fetched.branches),
        commit_info: JSON.stringify(fetched.commit),
        base_commit: fetched.commit.hash,
        sync_ts: now,
        attempt_ts: now,
        error: '',
      };
      await saveGitSync(db, row.id, values);
      if (!row.git_branch) await setSpiderBranch(db, row.id, fetched.branch);
      return {
        commit: fetched.commit,
        branch: fetched.branch,
        branches: fetched.branches,
        files: res.files,
        sync_ts: new Date(now).toISOString(),
        ...(merge ? { changes: merge.changes } : {}),
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await saveGitFailure(db, row.id, { remote: publicUrl(source.url), branch: source.branch }, now, message).catch(
        () => undefined,
      );
      throw err;
    }
  });
}

export async function gitInfo(db: Kysely<DB>, row: SpiderRow): Promise<GitInfo> {
  const state = await findGitState(db, row.id);
  return {
    remote: publicUrl(row.git_url),
    branch: row.git_branch || state?.branch || '',
    branches: state ? (JSON.parse(state.branches) as string[]) : [],
    commit: state?.commit_info ? (JSON.parse(state.commit_info) as GitCommit) : null,
    last_sync_ts: state?.sync_ts ? new Date(Number(state.sync_ts)).toISOString() : null,
    last_error: state?.error ?? '',
    auto_sync: !!row.git_auto_sync,
  };
}

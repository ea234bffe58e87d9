/** The commands of an environment job, built from its fields and the node's package manager (never a shell line). */
import os from 'node:os';
import {
  needsRootError,
  withoutCredentials,
  type EnvJobOrder,
  type EnvSettings,
  type PackageManager,
} from '@crawldeck/shared';
import type { ToolResult } from './tool.ts';
import { nodeEnvDir, pythonEnvDir, venvPython, type EnvPlaces } from './places.ts';

/** `sudo -n` in front when the node is not root (and may use sudo without a password); nothing as root. */
const asRoot = (argv: string[]) => (process.getuid?.() === 0 ? argv : ['sudo', '-n', ...argv]);

/**
 * What sudo (or the start of it) says when the node may not become root without a password, or cannot start sudo
 * at all: missing, or not executable for the node's user.
 */
const SUDO_REFUSED =
  /^sudo: (a password is required|a terminal is required|.* is not in the sudoers file|.* may not run sudo|sorry, user .* is not allowed)|^sudo: spawn sudo (EACCES|ENOENT|EPERM)/m;

/**
 * The error of a failed language command that ran through `sudo -n` because sudo refused the node: what is wrong
 * and what to do, instead of sudo's own line; null when sudo was not the reason (the package manager's words stay).
 */
export function sudoRefusal(argv: string[], r: ToolResult): string | null {
  if (argv[0] !== 'sudo' || r.code === 0) return null;
  if (!SUDO_REFUSED.test(r.tail.join('\n'))) return null;
  const tool = argv.find((a, i) => i > 0 && !a.startsWith('-')) ?? 'the package manager';
  return needsRootError(os.userInfo().username, tool);
}

export const aptUpdateCommand = () => asRoot(['apt-get', 'update']);

export function languageCommand(job: EnvJobOrder, pm: PackageManager | ''): string[] {
  const lang = job.language;
  if (!lang) throw new Error(`the language "${job.name}" is not in the catalogue`);
  if (!pm) throw new Error('the node has no package manager this job can use (apt-get, dnf, yum or apk)');
  const pkgs = (pm === 'yum' ? (lang.packages.yum ?? lang.packages.dnf) : lang.packages[pm]) ?? [];
  if (!pkgs.length) throw new Error(`the language "${lang.name}" names no ${pm} package`);
  const remove = job.action === 'uninstall';
  switch (pm) {
    case 'apt':
      return asRoot(['apt-get', remove ? 'remove' : 'install', '-y', '--no-install-recommends', ...pkgs]);
    case 'dnf':
    case 'yum':
      return asRoot([pm, remove ? 'remove' : 'install', '-y', ...pkgs]);
    case 'apk':
      return asRoot(['apk', remove ? 'del' : 'add', '--no-cache', ...pkgs]);
    default: {
      const never: never = pm;
      return never;
    }
  }
}

/**
 * pip's options every run starts with: isolated (no configuration file or PIP_ variable of the host or of a user
 * changes where packages come from), no prompts, no version check.
 */
export const PIP_OPTIONS = ['--isolated', '--disable-pip-version-check', '--no-input'];

/**
 * `--index-url`, `--extra-index-url` and `--trusted-host` for plain-http mirrors, from the settings, without their
 * passwords (those reach pip through its netrc file, credentials.ts).
 */
export function pipIndexArgs(s: EnvSettings): string[] {
  const args: string[] = [];
  const trust = (url: string) => (url.startsWith('http://') ? ['--trusted-host', new URL(url).hostname] : []);
  if (s.pip_index_url) args.push('--index-url', withoutCredentials(s.pip_index_url), ...trust(s.pip_index_url));
  if (s.pip_extra_index_url)
    args.push('--extra-index-url', withoutCredentials(s.pip_extra_index_url), ...trust(s.pip_extra_index_url));
  return args;
}

/** `name==1.2` for a bare version, `name>=1,<2` for a range. */
function pipSpec(name: string, version: string): string {
  if (!version) return name;
  return /^[0-9]/.test(version) ? `${name}==${version}` : `${name}${version}`;
}

export function pipCommand(job: EnvJobOrder, p: EnvPlaces, s: EnvSettings): string[] {
  const py = venvPython(pythonEnvDir(p, job.environment || undefined));
  const pip = [py, '-m', 'pip', ...PIP_OPTIONS];
  if (job.action === 'uninstall') return [...pip, 'uninstall', '-y', job.name];
  const upgrade = job.action === 'upgrade' ? ['--upgrade'] : [];
  return [...pip, 'install', ...upgrade, ...pipIndexArgs(s), pipSpec(job.name, job.version)];
}

/** The registry (and its password) comes from npm's user config the node writes (credentials.ts). */
export function npmCommand(job: EnvJobOrder, p: EnvPlaces): string[] {
  const prefix = ['--prefix', nodeEnvDir(p), '--no-audit', '--no-fund'];
  if (job.action === 'uninstall') return ['npm', 'uninstall', ...prefix, job.name];
  const version = job.version || (job.action === 'upgrade' ? 'latest' : '');
  return ['npm', 'install', ...prefix, version ? `${job.name}@${version}` : job.name];
}

/**
 * How index and registry passwords reach pip and npm: never on a command line (every user of the host sees those in
 * `ps`, and the node logs each command it runs) but in files of a folder the node owns, named to the tool through its
 * environment: a netrc file for pip (`NETRC`, read even in pip's isolated mode) and a user config for npm
 * (`npm_config_userconfig`) holding the registry and its credentials. The URLs on the command line carry no password,
 * and the passwords are returned so every line the tool prints can be redacted.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { urlPasswords, withoutCredentials, type EnvSettings } from '@crawldeck/shared';
import type { TaskIdentity } from '../sandbox.ts';
import { writeNewNoFollow } from '../no-follow.ts';

export interface ToolCredentials {
  /** Variables naming the files to the tools. */
  env: NodeJS.ProcessEnv;
  /** Passwords to hide in every line the tools print. */
  secrets: string[];
  /** Removes the files. */
  remove(): void;
}

/**
 * Writes a new file in a folder the node owns without following a link, readable by the build's user only (0400).
 */
function writePrivate(file: string, text: string, owner: TaskIdentity | undefined): void {
  writeNewNoFollow(file, text, 0o400, { owner });
}

/** A netrc entry for each index URL that carries a user name or password. */
function netrc(urls: string[]): string {
  const lines: string[] = [];
  for (const raw of urls) {
    if (!raw) continue;
    const u = new URL(raw);
    if (!u.username && !u.password) continue;
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    // netrc has no quoting every Python reads alike: a name or password with blanks cannot be written there.
    if (/\s/.test(user + pass)) throw new Error('an index user name or password must not contain blanks');
    lines.push(`machine ${u.hostname} login ${user || '-'} password ${pass}`);
  }
  return lines.join('\n') + '\n';
}

/** npm's user config: the registry without its password, and the password for that registry only. */
function npmrc(registry: string): string {
  if (!registry) return '';
  const u = new URL(registry);
  const bare = withoutCredentials(registry).replace(/\/?$/, '/');
  const lines = [`registry=${bare}`];
  if (u.username || u.password) {
    const auth = Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
    lines.push(`//${u.host}${u.pathname.replace(/\/?$/, '/')}:_auth=${auth}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * The credential files for one build or job, in `dir` (a folder the node owns, which the tools' user may enter),
 * given to `owner` when the tools run as another user.
 */
export function writeToolCredentials(dir: string, s: EnvSettings, owner: TaskIdentity | undefined): ToolCredentials {
  const netrcFile = path.join(dir, 'netrc');
  const npmrcFile = path.join(dir, 'npmrc');
  rmSync(netrcFile, { force: true });
  rmSync(npmrcFile, { force: true });
  writePrivate(netrcFile, netrc([s.pip_index_url, s.pip_extra_index_url]), owner);
  writePrivate(npmrcFile, npmrc(s.npm_registry), owner);
  const raw = [s.pip_index_url, s.pip_extra_index_url, s.npm_registry];
  const passwords = urlPasswords(raw);
  const npmAuth = s.npm_registry ? /_auth=(.+)/.exec(npmrc(s.npm_registry))?.[1] : undefined;
  return {
    env: { NETRC: netrcFile, npm_config_userconfig: npmrcFile },
    secrets: npmAuth ? [...passwords, npmAuth] : passwords,
    remove() {
      rmSync(netrcFile, { force: true });
      rmSync(npmrcFile, { force: true });
    },
  };
}

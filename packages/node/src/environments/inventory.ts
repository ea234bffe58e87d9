/** What a node has: its package manager, the catalogue's languages (found and their versions), installed packages. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type {
  EnvLanguage,
  EnvLanguageState,
  InstalledPackage,
  NodeInventoryBody,
  PackageManager,
} from '@crawldeck/shared';
import { which } from '../system.ts';
import { baseEnv } from '../sandbox.ts';
import { nodeEnvDir, pythonEnvDir, toolHome, venvComplete, venvPython, type EnvPlaces } from './places.ts';

const run = promisify(execFile);

/** apt first (Debian, Ubuntu), then dnf, yum (Fedora, RHEL), apk (Alpine): the first the node has. */
export function packageManager(): PackageManager | '' {
  if (which('apt-get')) return 'apt';
  if (which('dnf')) return 'dnf';
  if (which('yum')) return 'yum';
  if (which('apk')) return 'apk';
  return '';
}

async function output(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const r = await run(cmd, args, { env, timeout: 20_000, maxBuffer: 16 * 1024 * 1024 });
    return `${r.stdout}\n${r.stderr}`;
  } catch (err) {
    // Some tools answer on stderr or exit non-zero (`java -version`, `npm ls` with a problem): keep what they said.
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}\n${e.stderr ?? ''}`;
  }
}

export async function detectLanguage(
  l: EnvLanguage,
  env: NodeJS.ProcessEnv,
  executable = l.executable,
): Promise<EnvLanguageState> {
  const found = path.isAbsolute(executable)
    ? existsSync(executable)
      ? executable
      : undefined
    : which(executable, env.PATH);
  if (!found) return { key: l.key, installed: false, version: '', path: '' };
  const said = await output(found, l.version_args, env);
  const version = /(\d+(?:\.\d+)+)/.exec(said)?.[1] ?? '';
  return { key: l.key, installed: true, version, path: found };
}

/**
 * Every Python package the node's tasks can import: those of its environment, and those of the system Python it is
 * made from (`system`), which the environment sees. Before the environment exists (a fresh node) the list is the
 * system Python's, with pip when the system has it: installs work from the start.
 */
async function pipPackages(p: EnvPlaces, env: NodeJS.ProcessEnv): Promise<InstalledPackage[]> {
  const dir = pythonEnvDir(p);
  const own = venvComplete(dir);
  const py = own ? venvPython(dir) : p.python;
  const args = ['-m', 'pip', 'list', '--verbose', '--format=json', '--disable-pip-version-check', '--isolated'];
  const json = /\[.*\]/s.exec(await output(py, args, env))?.[0];
  if (!json) return [];
  const listed = JSON.parse(json) as { name: string; version: string; location?: string }[];
  return listed.map((x) => ({
    name: x.name,
    version: x.version,
    system: !own || !(x.location ?? '').startsWith(dir + path.sep),
  }));
}

async function npmPackages(p: EnvPlaces, env: NodeJS.ProcessEnv): Promise<InstalledPackage[]> {
  const dir = nodeEnvDir(p);
  if (!existsSync(path.join(dir, 'node_modules'))) return [];
  const said = await output('npm', ['ls', '--prefix', dir, '--depth=0', '--json'], env);
  const json = /\{.*\}/s.exec(said)?.[0];
  if (!json) return [];
  const deps = (JSON.parse(json) as { dependencies?: Record<string, { version?: string }> }).dependencies ?? {};
  return Object.entries(deps).map(([name, d]) => ({ name, version: d.version ?? '' }));
}

/** The environment package tools run with: ours is never passed on (npm and pip run install scripts). */
export function toolEnv(p: EnvPlaces): NodeJS.ProcessEnv {
  return { ...baseEnv(toolHome(p)), DEBIAN_FRONTEND: 'noninteractive', npm_config_update_notifier: 'false' };
}

export async function takeInventory(p: EnvPlaces, languages: EnvLanguage[]): Promise<NodeInventoryBody> {
  const env = toolEnv(p);
  return {
    package_manager: packageManager(),
    // Python is the interpreter tasks and the node's environments run with, not the first python3 on PATH.
    languages: await Promise.all(
      languages.map((l) => detectLanguage(l, env, l.key === 'python' ? p.python : l.executable)),
    ),
    pip: await pipPackages(p, env),
    npm: await npmPackages(p, env),
  };
}

/**
 * Where a node keeps its environments, all under its work dir (readable by the task user, outside the data dir):
 * `envs/python/<name>` virtualenvs and `envs/node/<name>` npm prefixes the administrator installs into, and
 * `spider-envs/` the per-spider environments built from a spider's requirements.txt or package.json.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface EnvPlaces {
  workDir: string;
  /** Interpreter the node's Python environments are made from. */
  python: string;
}

export const DEFAULT_ENV = 'default';

/**
 * One work folder per node data dir, in the system temp dir (outside the data dir, reachable by the task user). The
 * master finds its own node's there, to build a spider's environment for the Scrapy tools where that node uses it.
 */
export function defaultWorkDir(dataDir: string): string {
  return path.join(os.tmpdir(), `crawldeck-work-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
}

export const pythonEnvDir = (p: EnvPlaces, name = DEFAULT_ENV) => path.join(p.workDir, 'envs', 'python', name);
export const nodeEnvDir = (p: EnvPlaces, name = DEFAULT_ENV) => path.join(p.workDir, 'envs', 'node', name);
export const spiderEnvsDir = (p: EnvPlaces) => path.join(p.workDir, 'spider-envs');
export const toolHome = (p: EnvPlaces) => path.join(p.workDir, 'envs', 'home');
export const venvPython = (dir: string) => path.join(dir, 'bin', 'python');
/** Where the node keeps the index passwords its own jobs hand to pip and npm: a folder only it may enter. */
export const toolCredentialsDir = (p: EnvPlaces) => path.join(p.workDir, 'tool-credentials');

/**
 * Present while the node creates one of its own virtualenvs, beside it in a folder only the node writes: created
 * before the first file of the venv and removed after its last, so a venv whose creation was cut short (the node
 * killed) is never used and is made again.
 */
export const venvBuildingMarker = (dir: string) => path.join(path.dirname(dir), `.${path.basename(dir)}.building`);

/** A virtualenv of the node's that was made to the end. */
export const venvComplete = (dir: string) => existsSync(venvPython(dir)) && !existsSync(venvBuildingMarker(dir));

/** The node's own environments, when an administrator installed into them: tasks see their packages. */
export function nodeTaskEnvironment(p: EnvPlaces): { python?: string; path: string[]; nodePath: string[] } {
  const py = pythonEnvDir(p);
  const npm = nodeEnvDir(p);
  const hasPy = venvComplete(py);
  const hasNpm = existsSync(path.join(npm, 'node_modules'));
  return {
    python: hasPy ? venvPython(py) : undefined,
    path: [...(hasPy ? [path.join(py, 'bin')] : []), ...(hasNpm ? [path.join(npm, 'node_modules', '.bin')] : [])],
    nodePath: hasNpm ? [path.join(npm, 'node_modules')] : [],
  };
}

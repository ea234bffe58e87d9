/**
 * Where a node keeps its environments, all under its work dir (readable by the task user, outside the data dir):
 * `envs/python/<name>` virtualenvs and `envs/node/<name>` npm prefixes the administrator installs into, and
 * `spider-envs/` the per-spider environments built from a spider's requirements.txt or package.json.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface EnvPlaces {
  workDir: string;
  /** Interpreter the node's Python environments are made from. */
  python: string;
}

export const DEFAULT_ENV = 'default';

export const pythonEnvDir = (p: EnvPlaces, name = DEFAULT_ENV) => path.join(p.workDir, 'envs', 'python', name);
export const nodeEnvDir = (p: EnvPlaces, name = DEFAULT_ENV) => path.join(p.workDir, 'envs', 'node', name);
export const spiderEnvsDir = (p: EnvPlaces) => path.join(p.workDir, 'spider-envs');
export const toolHome = (p: EnvPlaces) => path.join(p.workDir, 'envs', 'home');
export const venvPython = (dir: string) => path.join(dir, 'bin', 'python');

/** The node's own environments, when an administrator installed into them: tasks see their packages. */
export function nodeTaskEnvironment(p: EnvPlaces): { python?: string; path: string[]; nodePath: string[] } {
  const py = pythonEnvDir(p);
  const npm = nodeEnvDir(p);
  const hasPy = existsSync(venvPython(py));
  const hasNpm = existsSync(path.join(npm, 'node_modules'));
  return {
    python: hasPy ? venvPython(py) : undefined,
    path: [...(hasPy ? [path.join(py, 'bin')] : []), ...(hasNpm ? [path.join(npm, 'node_modules', '.bin')] : [])],
    nodePath: hasNpm ? [path.join(npm, 'node_modules')] : [],
  };
}

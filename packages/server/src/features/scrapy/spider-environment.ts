/**
 * The environment the Scrapy tools read a project in: the one its tasks get. A spider whose source folder holds a
 * requirements.txt runs in its own virtualenv on the nodes; listing its spiders with the master's Python would fail
 * on a package only that environment has. So the master builds (or reuses) the same environment, where its own node
 * keeps it, with the node's code, as the task user; and an error names the environment it used.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { EnvSettings } from '@crawldeck/shared';
import { defaultWorkDir, taskEnvironment, type TaskIdentity } from '@crawldeck/node/user-code';
import type { MasterConfig } from '../../config.ts';
import { HttpError } from '../../http/errors.ts';

export interface ToolEnvironment {
  python: string;
  /** Folders the helper's sandbox must show it: the spider's environment (it lives where a sandbox hides). */
  readable: string[];
  /** The environment in words, for error messages. */
  label: string;
}

/** Where spider environments are built: the work dir of the master's own node, so its tasks reuse them. */
export const spiderEnvWorkDir = (config: MasterConfig) =>
  config.nodeWorkDir || defaultWorkDir(path.resolve(config.dataDir, 'node'));

const hasFile = (file: string) => {
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
};

/**
 * The Python the helper runs with for a spider: its own environment when `folder` (its source folder in a checkout)
 * holds requirements.txt, built if needed; else the master's.
 */
export async function toolEnvironment(opts: {
  python: string;
  workDir: string;
  spiderId: string;
  folder: string;
  /** The source folder, as people name it ('' for the root). */
  src: string;
  identity: TaskIdentity | undefined;
  settings: () => Promise<EnvSettings>;
}): Promise<ToolEnvironment> {
  const requirements = opts.src ? `${opts.src}/requirements.txt` : 'requirements.txt';
  if (!hasFile(path.join(opts.folder, 'requirements.txt')))
    return {
      python: opts.python,
      readable: [],
      label: `the master's Python ${opts.python} (the spider has no ${requirements})`,
    };
  const lines: string[] = [];
  try {
    const te = await taskEnvironment(opts.folder, opts.spiderId, {
      places: { workDir: opts.workDir, python: opts.python },
      identity: opts.identity,
      settings: await opts.settings(),
      note: (l) => lines.push(l),
    });
    const python = te.python ?? opts.python;
    return {
      python,
      readable: te.python ? [path.dirname(path.dirname(te.python))] : [],
      label: `the spider's own environment, built from ${requirements}`,
    };
  } catch (err) {
    const tail = lines.slice(-5).join('\n');
    throw new HttpError(
      422,
      `the spider's own environment (from ${requirements}) could not be built: ${(err as Error).message}` +
        (tail ? `\n${tail}` : ''),
    );
  }
}

/** A helper's error naming the environment it ran in, when a module was missing there. */
export function withEnvironment(message: string, env: ToolEnvironment): string {
  return /No module named/.test(message) ? `${message} (in ${env.label})` : message;
}

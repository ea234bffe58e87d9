/**
 * Guesses how a spider's files are meant to be run, so a spider imported from Git or uploaded as a zip can run
 * without the user typing a command first (they can still edit it). The first rule that matches wins:
 *   - a Scrapy project (scrapy.cfg at the root) → `scrapy crawl`, the Scrapy spider is picked in the Run dialog;
 *   - main.py → `python3 main.py` (the node runs it with its own Python);
 *   - package.json with a start script → `npm start`;
 *   - a single script at the root that starts with `#!` → `./name` (nodes write spider files executable).
 * Nothing found → '' and the spider cannot run until a command is set.
 */

import type { Kysely } from 'kysely';
import { errorText } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { listFiles, readFile } from './files.store.ts';
import { setCommandIfEmpty } from './spiders.store.ts';

export interface SpiderFileContent {
  path: string;
  content: Buffer;
}

/** The run command of a Scrapy project: the spider name follows in the task's parameters. */
export const SCRAPY_COMMAND = 'scrapy crawl';

function hasStartScript(packageJson: Buffer): boolean {
  try {
    const pkg = JSON.parse(packageJson.toString('utf8')) as { scripts?: Record<string, unknown> };
    return typeof pkg.scripts?.start === 'string' && pkg.scripts.start.trim() !== '';
  } catch {
    return false;
  }
}

const SHELL_SAFE = /^[A-Za-z0-9_.-]+$/;

function rootScripts(files: SpiderFileContent[]): string[] {
  return files
    .filter(
      (f) => !f.path.includes('/') && SHELL_SAFE.test(f.path) && f.content.subarray(0, 2).toString('latin1') === '#!',
    )
    .map((f) => f.path);
}

export function inferCommand(files: SpiderFileContent[]): string {
  const byPath = new Map(files.map((f) => [f.path, f.content]));
  if (byPath.has('scrapy.cfg')) return SCRAPY_COMMAND;
  if (byPath.has('main.py')) return 'python3 main.py';
  const pkg = byPath.get('package.json');
  if (pkg && hasStartScript(pkg)) return 'npm start';
  const scripts = rootScripts(files);
  if (scripts.length === 1) return `./${scripts[0]}`;
  return '';
}

/** The files of the source folder `src` ('' for the root), named relative to it. */
export function filesInFolder(files: SpiderFileContent[], src: string): SpiderFileContent[] {
  if (!src) return files;
  const prefix = `${src}/`;
  return files.filter((f) => f.path.startsWith(prefix)).map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
}

/**
 * For a spider whose files changed without a command being given (Git import and sync): guesses the command from
 * the stored files of its source folder (the root when it has none) and sets it while the spider still has none.
 * Returns the spider's command afterwards.
 */
export async function fillMissingCommand(
  db: Kysely<DB>,
  spider: { id: string; cmd: string; src?: string },
): Promise<string> {
  if (spider.cmd.trim()) return spider.cmd;
  const src = spider.src ?? '';
  const inFolder = (p: string) =>
    src ? p.startsWith(`${src}/`) && !p.slice(src.length + 1).includes('/') : !p.includes('/');
  const folderFiles = (await listFiles(db, spider.id)).filter((e) => !e.is_dir && inFolder(e.path));
  const files: SpiderFileContent[] = [];
  for (const e of folderFiles)
    files.push({
      path: src ? e.path.slice(src.length + 1) : e.path,
      content: (await readFile(db, spider.id, e.path)) ?? Buffer.alloc(0),
    });
  const cmd = inferCommand(files);
  if (cmd) await setCommandIfEmpty(db, spider.id, cmd);
  return cmd;
}

/**
 * Why a task of this spider cannot start, or null when it can. The node runs the command followed by the task's
 * parameters: nothing at all to run, or `scrapy crawl` with no Scrapy spider name after it, is refused.
 */
export function missingCommand(cmd: string, param: string): 'no_command' | 'scrapy_name_required' | null {
  const line = `${cmd.trim()} ${param.trim()}`.trim();
  if (!line) return 'no_command';
  if (/^scrapy\s+crawl(\s+-|$)/.test(line)) return 'scrapy_name_required';
  return null;
}

/** The text of `missingCommand` for a task's refusal, or null when the task can start. */
export function missingCommandReason(cmd: string, param: string): string | null {
  const missing = missingCommand(cmd, param);
  return missing && errorText(`spider.${missing}`);
}

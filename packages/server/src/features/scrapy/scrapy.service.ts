import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { folderOf, inSourceFolder, SCRAPY_SETTING_TYPES, type EnvSettings } from '@crawldeck/shared';
import { asTaskUser, baseEnv, jailSupport, spawnJailed, type TaskIdentity } from '@crawldeck/node/user-code';
import type { DB } from '../../store/schema.ts';
import type { MasterConfig } from '../../config.ts';
import { HttpError } from '../../http/errors.ts';
import { listFiles } from '../spiders/files.store.ts';
import { getSpider } from '../spiders/spiders.store.ts';
import { checkout, KeyedMutex } from './workspace.ts';
import { spiderEnvWorkDir, toolEnvironment, withEnvironment } from './spider-environment.ts';

// Passed to Python as `-c` source: the task user need not be able to read the Crawldeck install.
const HELPER_SOURCE = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), 'py', 'scrapy_helper.py'),
  'utf8',
);

/**
 * How the master runs its Python helpers: which interpreter, for how long at most, as which user when root; for
 * the Scrapy tools also where spider environments are built and the package index settings they are built with.
 */
export interface PythonSettings {
  python: string;
  timeoutMs: number;
  taskUser: string;
  spiderEnvs?: { workDir: string; settings: () => Promise<EnvSettings> };
}

export const pythonSettingsOf = (config: MasterConfig, envSettings?: () => Promise<EnvSettings>): PythonSettings => ({
  python: config.python,
  timeoutMs: config.scrapyTimeoutMs,
  taskUser: config.taskUser,
  ...(envSettings ? { spiderEnvs: { workDir: spiderEnvWorkDir(config), settings: envSettings } } : {}),
});

/** Helper commands that import the project's code: they run in the spider's own environment. */
const IMPORTS_CODE: ReadonlySet<HelperCommand> = new Set(['list', 'filepath', 'genspider']);

/** 422 with the helper's reason: the console keeps it per section (packages/shared/src/scrapy.ts). */
export const scrapyError = (message: string) => new HttpError(422, message);

export type HelperCommand =
  | 'list'
  | 'filepath'
  | 'genspider'
  | 'settings'
  | 'set-settings'
  | 'items'
  | 'set-items'
  | 'pipelines'
  | 'set-pipelines';

/**
 * Runs the helper in `cwd` (a Scrapy project root of a checkout) with a timeout; the process group is killed when
 * it expires. The helper imports the user's code: it runs like a task (docs/spiders.md "Isolation") — as the task
 * user when the master is root, with nothing of the master's environment, in the checkout outside the data dir.
 */
export function runHelper<T>(
  py: PythonSettings & { readable?: string[] },
  cwd: string,
  command: HelperCommand,
  input: unknown = null,
  identity?: TaskIdentity,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(cwd),
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONIOENCODING: 'utf-8',
      PYTHONUNBUFFERED: '1',
    };
    const argv = [py.python, '-c', HELPER_SOURCE, command];
    // In a sandbox of its own where the host has one: its own processes and /tmp, only its checkout writable.
    const jail = jailSupport(identity?.uid);
    const plan = { identity, cgroupProcs: [], hidden: [], readable: py.readable ?? [], writable: [cwd], cwd, env };
    const child = jail.ok
      ? spawnJailed(argv, plan, ['pipe', 'pipe', 'pipe'], jail.bwrap)
      : spawn(argv[0], argv.slice(1), {
          cwd,
          env,
          detached: true,
          stdio: ['pipe', 'pipe', 'pipe'],
          ...asTaskUser(identity),
        });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, py.timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      if (err.length < 64 * 1024) err += d;
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(scrapyError(`cannot start Python (${py.python}): ${e.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return reject(scrapyError(`the Scrapy helper did not finish within ${py.timeoutMs / 1000} s`));
      let parsed: { data?: T; error?: string } | undefined;
      try {
        parsed = JSON.parse(out);
      } catch {
        const last = err.trim().split('\n').pop() || `exit code ${code}`;
        return reject(scrapyError(`the Scrapy helper failed: ${last}`));
      }
      if (parsed?.error) return reject(scrapyError(parsed.error));
      resolve(parsed!.data as T);
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(JSON.stringify({ known_types: SCRAPY_SETTING_TYPES, input }));
  });
}

/**
 * Folder (relative, '' for the root) of the spider's Scrapy project: its source folder when it has one (which must
 * hold scrapy.cfg), else the shallowest folder holding a scrapy.cfg.
 */
export async function projectRoot(db: Kysely<DB>, spiderId: string, src = ''): Promise<string> {
  const cfgs = (await listFiles(db, spiderId))
    .filter((f) => !f.is_dir && (f.path === 'scrapy.cfg' || f.path.endsWith('/scrapy.cfg')))
    .map((f) => f.path);
  if (src) {
    if (!cfgs.includes(inSourceFolder(src, 'scrapy.cfg')))
      throw scrapyError(`scrapy.cfg not found in the source folder "${src}": it is not a Scrapy project`);
    return src;
  }
  if (!cfgs.length) throw scrapyError('scrapy.cfg not found: this spider is not a Scrapy project');
  cfgs.sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  return folderOf(cfgs[0]);
}

const writers = new KeyedMutex();

/**
 * Runs a helper command on a fresh checkout of the spider's files. With `write`, files the helper changed are
 * stored back (serialised per spider so two edits do not overwrite each other).
 */
export async function scrapyCall<T>(
  db: Kysely<DB>,
  py: PythonSettings,
  spiderId: string,
  command: HelperCommand,
  input: unknown = null,
  write = false,
): Promise<T> {
  const work = async () => {
    const src = (await getSpider(db, spiderId))?.src ?? '';
    const root = await projectRoot(db, spiderId, src);
    const co = await checkout(db, spiderId, py.python, py.taskUser);
    try {
      const env =
        py.spiderEnvs && IMPORTS_CODE.has(command)
          ? await toolEnvironment({
              ...py.spiderEnvs,
              python: py.python,
              spiderId,
              folder: path.join(co.dir, src),
              src,
              identity: co.identity,
            })
          : { python: py.python, readable: [], label: `the master's Python ${py.python}` };
      const result = await runHelper<T>(
        { ...py, python: env.python, readable: env.readable },
        path.join(co.dir, root),
        command,
        input,
        co.identity,
      ).catch((err: Error) => {
        throw scrapyError(withEnvironment(err.message, env));
      });
      if (write) await co.writeBack();
      return { result, root };
    } finally {
      co.dispose();
    }
  };
  const { result, root } = write ? await writers.run(spiderId, work) : await work();
  if (command === 'filepath' && root) return `${root}/${result as string}` as T;
  if (command === 'genspider' && root) {
    const r = result as { name: string; filepath: string };
    return { ...r, filepath: `${root}/${r.filepath}` } as T;
  }
  return result;
}

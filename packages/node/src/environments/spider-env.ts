/**
 * Per-spider environments: a spider whose files hold `requirements.txt` runs in its own virtualenv, one whose files
 * hold `package.json` with its own node_modules. Each is keyed by the spider and a hash of the file (and lockfile),
 * built before the first task that needs it, reused by the next ones, rebuilt when the file changes. It is built as
 * the task user (the requirements are the spider author's, as untrusted as the spider's code) with the node's
 * Python (`--system-site-packages`, so the Scrapy of the system stays available), and its build log goes into the
 * task's log. Spiders without such a file keep the node's environment.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { EnvSettings } from '@crawldeck/shared';
import { asTaskUser, baseEnv, giveTree, passThroughDir, removeUserTreeAsync, type TaskIdentity } from '../sandbox.ts';
import { pipIndexArgs } from './commands.ts';
import { nodeTaskEnvironment, spiderEnvsDir, venvPython, type EnvPlaces } from './places.ts';
import { runTool, toolError } from './tool.ts';

/** What a task process gets of its environments: the interpreter, PATH and NODE_PATH entries to put first. */
export interface TaskEnvironment {
  python?: string;
  path: string[];
  nodePath: string[];
}

const READY = '.crawldeck-ready';
const building = new Map<string, Promise<void>>();

/** Folders 0755 and files readable by everyone (`chmod -R a+rX`), without blocking the event loop. */
export async function openToTaskUser(dir: string): Promise<void> {
  await promisify(execFile)('chmod', ['-R', 'a+rX', dir]).catch(() => undefined);
}

function fileHash(workspace: string, files: string[]): string | undefined {
  const present = files.filter((f) => existsSync(path.join(workspace, f)));
  if (!present.length) return undefined;
  const h = createHash('sha256');
  for (const f of present)
    h.update(f)
      .update('\0')
      .update(readFileSync(path.join(workspace, f)))
      .update('\0');
  return h.digest('hex').slice(0, 16);
}

interface Build {
  places: EnvPlaces;
  identity: TaskIdentity | undefined;
  settings: EnvSettings;
  note(line: string): void;
}

/** Builds `dir` once (concurrent tasks of one spider wait for the same build); a half-built one is redone. */
async function ensureBuilt(
  dir: string,
  b: Build,
  kind: string,
  steps: (env: NodeJS.ProcessEnv) => string[][],
): Promise<void> {
  if (existsSync(path.join(dir, READY))) {
    b.note(`[environment] reusing the ${kind} environment ${path.basename(dir)} (built before)`);
    return;
  }
  const running = building.get(dir);
  if (running) return running;
  const work = (async () => {
    const started = Date.now();
    b.note(`[environment] building the ${kind} environment ${path.basename(dir)}`);
    await removeUserTreeAsync(dir, b.identity);
    mkdirSync(path.join(dir, '.home'), { recursive: true, mode: 0o755 });
    giveTree(dir, b.identity);
    const env = { ...baseEnv(path.join(dir, '.home')), npm_config_update_notifier: 'false' };
    for (const argv of steps(env)) {
      const r = await runTool({ argv, env, cwd: dir, ...asTaskUser(b.identity), onLine: (l) => b.note(l) });
      if (r.code !== 0) throw new Error(`building the spider's ${kind} environment failed: ${toolError(r)}`);
    }
    writeFileSync(path.join(dir, READY), new Date().toISOString() + '\n');
    b.note(`[environment] built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  })().finally(() => building.delete(dir));
  building.set(dir, work);
  return work;
}

/** Removes the spider's environments built from earlier versions of its files. */
async function dropOlder(spiderId: string, kind: string, keep: string, b: Build): Promise<void> {
  const root = spiderEnvsDir(b.places);
  for (const name of readdirSync(root))
    if (name.startsWith(`${spiderId}-${kind}-`) && name !== keep && !building.has(path.join(root, name)))
      await removeUserTreeAsync(path.join(root, name), b.identity);
}

/** The environment a task of this spider runs in: its own where its files ask for one, else the node's. */
export async function taskEnvironment(workspace: string, spiderId: string, b: Build): Promise<TaskEnvironment> {
  const node = nodeTaskEnvironment(b.places);
  const root = passThroughDir(spiderEnvsDir(b.places));
  const env: TaskEnvironment = { ...node, path: [...node.path], nodePath: [...node.nodePath] };
  const pyHash = fileHash(workspace, ['requirements.txt']);
  if (pyHash) {
    const name = `${spiderId}-py-${pyHash}`;
    const dir = path.join(root, name);
    await ensureBuilt(dir, b, 'Python', () => [
      [b.places.python, '-m', 'venv', '--system-site-packages', dir],
      [
        venvPython(dir),
        '-m',
        'pip',
        '--disable-pip-version-check',
        '--no-input',
        'install',
        ...pipIndexArgs(b.settings),
        '-r',
        path.join(workspace, 'requirements.txt'),
      ],
    ]);
    await dropOlder(spiderId, 'py', name, b);
    env.python = venvPython(dir);
    env.path.unshift(path.join(dir, 'bin'));
  }
  const npmHash = fileHash(workspace, ['package.json', 'package-lock.json']);
  if (npmHash) {
    const name = `${spiderId}-npm-${npmHash}`;
    const dir = path.join(root, name);
    const lock = existsSync(path.join(workspace, 'package-lock.json'));
    await ensureBuilt(dir, b, 'Node.js', () => {
      for (const f of ['package.json', ...(lock ? ['package-lock.json'] : [])])
        copyFileSync(path.join(workspace, f), path.join(dir, f));
      giveTree(dir, b.identity);
      const registry = b.settings.npm_registry ? ['--registry', b.settings.npm_registry] : [];
      return [['npm', lock ? 'ci' : 'install', '--omit=dev', '--no-audit', '--no-fund', ...registry]];
    });
    await dropOlder(spiderId, 'npm', name, b);
    env.nodePath.unshift(path.join(dir, 'node_modules'));
    env.path.unshift(path.join(dir, 'node_modules', '.bin'));
  }
  return env;
}

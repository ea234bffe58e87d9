/**
 * Per-spider environments: a spider whose files hold `requirements.txt` runs in its own virtualenv, one whose files
 * hold `package.json` with its own node_modules. Each is keyed by the spider and a hash of the file (and lockfile),
 * built before the first task that needs it, reused by the next ones, rebuilt when the file changes. The
 * requirements are the spider author's, as untrusted as the spider's code, so the build runs in the task's sandbox
 * (build-sandbox.ts) as the task's uid, with the node's Python (`--system-site-packages`, so the Scrapy of the system
 * stays available), and its build log goes into the task's log. Spiders without such a file keep the node's
 * environment.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { EnvSettings } from '@crawldeck/shared';
import { asTaskUser, baseEnv, giveTree, passThroughDir, removeUserTreeAsync, type TaskIdentity } from '../sandbox.ts';
import { buildSandbox, type BuildConfinement, type BuildSandbox } from './build-sandbox.ts';
import { PIP_OPTIONS, pipIndexArgs } from './commands.ts';
import { writeToolCredentials } from './credentials.ts';
import { nodeTaskEnvironment, spiderEnvsDir, venvPython, type EnvPlaces } from './places.ts';
import { checkRequirements } from './requirements.ts';
import { readNoFollow, writeNewNoFollow } from '../no-follow.ts';
import { runTool, toolError } from './tool.ts';

/** What a task process gets of its environments: the interpreter, PATH and NODE_PATH entries to put first. */
export interface TaskEnvironment {
  python?: string;
  path: string[];
  nodePath: string[];
}

/**
 * One environment is a folder the node owns (`spider-envs/<name>/`, nobody else may write in it) holding `env/`
 * (the virtualenv or node_modules prefix, built by the task's uid), `home/` (that uid's home during the build) and,
 * written last by the node, the `ready` marker. A build the node did not finish (killed, failed) has no marker: it
 * is never handed to a task, and the next task removes and rebuilds it. Nothing the build's code does can make the
 * node write through a link: the marker and the tools' credential files live beside `env/`, not in it.
 */
const READY = 'ready';
export const envFolder = (dir: string) => path.join(dir, 'env');
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
  /** The task's sandbox and limits, which the build runs under; undefined on a node that cannot sandbox. */
  confinement?: BuildConfinement;
  note(line: string): void;
}

const ours = (dir: string): boolean => {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && (!process.getuid || st.uid === process.getuid());
  } catch {
    return false;
  }
};

/** The uid that owns `p` (not following a link), as an identity to remove its files as; undefined for ours. */
function ownerOf(p: string): TaskIdentity | undefined {
  const st = lstatSync(p);
  if (!process.getuid || st.uid === process.getuid() || st.uid === 0) return undefined;
  return { user: String(st.uid), uid: st.uid, gid: st.gid };
}

/**
 * Removes an environment folder: what a task uid built is removed by that uid (a link it planted cannot make us
 * delete anything else), the node's own files by us. An environment of the earlier layout (the whole folder the
 * task user's) goes the same way.
 */
async function removeEnvironment(dir: string): Promise<void> {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return;
  }
  if (!ours(dir)) {
    if (st.isDirectory()) await removeUserTreeAsync(dir, ownerOf(dir));
    else rmSync(dir, { force: true });
    return;
  }
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (lstatSync(p).isDirectory()) await removeUserTreeAsync(p, ownerOf(p));
    else rmSync(p, { force: true });
  }
  rmdirSync(dir);
}

/** Copies a regular file of the workspace into a folder of ours, following a link on neither side. */
function copyNoFollow(src: string, dst: string): void {
  writeNewNoFollow(dst, readNoFollow(src), 0o644);
}

/** Writes the ready marker into the node's own folder, never through a link. */
function markReady(dir: string): void {
  writeNewNoFollow(path.join(dir, READY), new Date().toISOString() + '\n', 0o644);
}

/** One environment to build: its kind in words, the files copied into it, the folders it reads, its commands. */
interface BuildSpec {
  kind: string;
  /** Copied into `env/` before the task's uid gets it. */
  files: string[];
  /** Folders the build reads besides its own (the task's workspace, for requirements.txt). */
  reads: string[];
  steps(envDir: string): string[][];
}

/**
 * Builds `dir` once (concurrent tasks of one spider wait for the same build); one without its ready marker is
 * removed and built again.
 */
async function ensureBuilt(dir: string, b: Build, { kind, files, reads, steps }: BuildSpec): Promise<void> {
  if (ours(dir) && existsSync(path.join(dir, READY))) {
    b.note(`[environment] reusing the ${kind} environment ${path.basename(dir)} (built before)`);
    return;
  }
  const running = building.get(dir);
  if (running) return running;
  const work = (async () => {
    const started = Date.now();
    b.note(`[environment] building the ${kind} environment ${path.basename(dir)}`);
    await removeEnvironment(dir);
    mkdirSync(dir, { mode: 0o755 });
    if (!ours(dir)) throw new Error(`the environment folder ${path.basename(dir)} is not the node's`);
    const envDir = envFolder(dir);
    const home = path.join(dir, 'home');
    mkdirSync(envDir, { mode: 0o755 });
    mkdirSync(home, { mode: 0o700 });
    for (const f of files) copyNoFollow(f, path.join(envDir, path.basename(f)));
    giveTree(envDir, b.identity);
    giveTree(home, b.identity);
    const creds = writeToolCredentials(dir, b.settings, b.identity);
    const env = { ...baseEnv(home), npm_config_update_notifier: 'false', ...creds.env };
    let sandbox: BuildSandbox | undefined;
    try {
      sandbox = buildSandbox(b.confinement, b.identity, { envRoot: dir, writable: [envDir, home], readable: reads });
      if (sandbox) b.note('[environment] the build runs in the task’s sandbox: only env/ and its home are writable');
      for (const argv of steps(envDir)) {
        const r = await runTool({
          argv,
          env,
          cwd: envDir,
          secrets: creds.secrets,
          ...asTaskUser(b.identity),
          ...(sandbox ? { launch: sandbox.launch } : {}),
          onLine: (l) => b.note(l),
        });
        if (r.code !== 0) {
          const why = sandbox?.limitReason() ?? toolError(r);
          throw new Error(`building the spider's ${kind} environment failed: ${why}`);
        }
      }
    } finally {
      sandbox?.dispose();
      creds.remove();
    }
    markReady(dir);
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
      await removeEnvironment(path.join(root, name));
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
    checkRequirements(workspace);
    await ensureBuilt(dir, b, {
      kind: 'Python',
      files: [],
      reads: [workspace],
      steps: (venv) => [
        [b.places.python, '-m', 'venv', '--system-site-packages', venv],
        [
          venvPython(venv),
          '-m',
          'pip',
          ...PIP_OPTIONS,
          'install',
          ...pipIndexArgs(b.settings),
          '-r',
          path.join(workspace, 'requirements.txt'),
        ],
      ],
    });
    await dropOlder(spiderId, 'py', name, b);
    env.python = venvPython(envFolder(dir));
    env.path.unshift(path.join(envFolder(dir), 'bin'));
  }
  const npmHash = fileHash(workspace, ['package.json', 'package-lock.json']);
  if (npmHash) {
    const name = `${spiderId}-npm-${npmHash}`;
    const dir = path.join(root, name);
    const lock = existsSync(path.join(workspace, 'package-lock.json'));
    const files = ['package.json', ...(lock ? ['package-lock.json'] : [])].map((f) => path.join(workspace, f));
    await ensureBuilt(dir, b, {
      kind: 'Node.js',
      files,
      reads: [],
      steps: () => [['npm', lock ? 'ci' : 'install', '--omit=dev', '--no-audit', '--no-fund']],
    });
    await dropOlder(spiderId, 'npm', name, b);
    env.nodePath.unshift(path.join(envFolder(dir), 'node_modules'));
    env.path.unshift(path.join(envFolder(dir), 'node_modules', '.bin'));
  }
  return env;
}

import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The spider-side SDKs shipped with Crawldeck (Python package `crawldeck`, Node module `crawldeck`). */
export const SDK_DIR = path.resolve(here, '../../sdk');
const CONFIG_SPIDER_ENTRY = path.join(here, 'config-spider', 'run.ts');
/** The runner built ahead of time, beside the node's own bundle (a node installed from the master's bundle). */
export const PREBUILT_CONFIG_SPIDER = path.join(here, 'config-spider.mjs');

/** What a task process loads from Crawldeck, in a folder every user can read. */
export interface TaskRuntime {
  /** PYTHONPATH entry holding the `crawldeck` Python package. */
  sdkPythonPath: string;
  /** NODE_PATH entry holding the `crawldeck` Node module. */
  sdkNodePath: string;
  /** Folder of our helper commands (crawldeck-config-spider), put first on PATH. */
  binPath: string;
}

// A bundled ES module has no `require`; some bundled CommonJS dependencies call it for Node built-ins.
const REQUIRE_SHIM =
  "import { createRequire as __cdRequire } from 'node:module'; const require = __cdRequire(import.meta.url);";

/**
 * Copies the SDKs and a self-contained build of the configurable-spider runner into `<workDir>/runtime`
 * (owned by the node, readable by everyone). Task processes run as an unprivileged user and must not depend on
 * reading the Crawldeck install: an operator may well have it under a private home folder.
 */
export async function stageTaskRuntime(workDir: string): Promise<TaskRuntime> {
  const root = path.join(workDir, 'runtime');
  rmSync(root, { recursive: true, force: true });
  const binPath = path.join(root, 'bin');
  const sdkNodePath = path.join(root, 'node_modules');
  const sdkPythonPath = path.join(root, 'python');
  for (const dir of [root, binPath, sdkNodePath, sdkPythonPath]) mkdirSync(dir, { recursive: true, mode: 0o755 });
  cpSync(path.join(SDK_DIR, 'python'), sdkPythonPath, { recursive: true });
  cpSync(path.join(SDK_DIR, 'node'), path.join(sdkNodePath, 'crawldeck'), { recursive: true });
  // Crawlab's Node SDK by its name, on top of ours: Crawlab spiders run unchanged (docs/spiders.md).
  cpSync(path.join(SDK_DIR, 'node-crawlab'), path.join(sdkNodePath, 'crawlab-sdk'), { recursive: true });
  const bundle = path.join(root, 'config-spider.mjs');
  if (existsSync(PREBUILT_CONFIG_SPIDER)) copyFileSync(PREBUILT_CONFIG_SPIDER, bundle);
  else await buildConfigSpiderRunner(bundle);
  const launcher = path.join(binPath, 'crawldeck-config-spider');
  writeFileSync(
    launcher,
    `#!/bin/sh\n# Runs a configurable spider (a Spiderfile) as a task process.\nexec node "${bundle}" "$@"\n`,
  );
  chmodSync(launcher, 0o755);
  openToEveryone(root);
  return { sdkPythonPath, sdkNodePath, binPath };
}

/** The configurable-spider runner as one self-contained ES module (esbuild is loaded only when building it). */
export async function buildConfigSpiderRunner(outfile: string): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [CONFIG_SPIDER_ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: REQUIRE_SHIM },
    logLevel: 'silent',
  });
}

/** Folders and the launcher 0755, other files 0644, whatever the umask made of them. */
function openToEveryone(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) openToEveryone(p);
    else chmodSync(p, entry.name === 'crawldeck-config-spider' ? 0o755 : 0o644);
  }
}

/**
 * The node as one folder a fresh machine can run with nothing but Node.js: the node service bundled into one ES
 * module, the configurable-spider runner built ahead of time, the spider SDKs and a launcher, packed as a
 * `.tar.gz`. The master serves it (with its SHA-256) to the one-line installer; the layout mirrors the repository
 * (`packages/node/dist`, `packages/sdk`) so the node finds the SDKs where it always does.
 */
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SDK_DIR, buildConfigSpiderRunner } from './task-runtime.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const BUNDLE_DIR_NAME = 'crawldeck-node';
/** What the bundle's folder holds; an installed node's folder also keeps its key and `data`, which are not ours. */
export const BUNDLE_ENTRIES = ['bin', 'packages', 'VERSION'] as const;

const LAUNCHER = `#!/bin/sh
# Runs the Crawldeck node service. The node key comes from --key-file FILE, CRAWLDECK_NODE_KEY_FILE or
# CRAWLDECK_NODE_KEY, never from the command line (every local user can read a command line).
# The node keeps its data in the folder it is installed in (data/) unless --data-dir or CRAWLDECK_NODE_DATA_DIR says
# otherwise, wherever it is started from.
here=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
CRAWLDECK_NODE_HOME="$here"
export CRAWLDECK_NODE_HOME
exec node "$here/packages/node/dist/crawldeck-node.mjs" "$@"
`;

const REQUIRE_SHIM =
  "import { createRequire as __cdRequire } from 'node:module'; const require = __cdRequire(import.meta.url);";

/** Puts the node's folder together in `root`: the bundled service, the prebuilt runner, the SDKs, the launcher. */
async function assembleNode(root: string, version: string): Promise<void> {
  const { build } = await import('esbuild');
  const dist = path.join(root, 'packages', 'node', 'dist');
  mkdirSync(dist, { recursive: true });
  await build({
    entryPoints: [path.join(here, 'bundle-entry.ts')],
    outfile: path.join(dist, 'crawldeck-node.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: REQUIRE_SHIM },
    // Optional native speed-ups of ws, and esbuild (only needed to build the runner, which ships prebuilt).
    external: ['bufferutil', 'utf-8-validate', 'esbuild'],
    logLevel: 'silent',
  });
  await buildConfigSpiderRunner(path.join(dist, 'config-spider.mjs'));
  for (const sdk of ['python', 'node', 'node-crawlab'])
    cpSync(path.join(SDK_DIR, sdk), path.join(root, 'packages', 'sdk', sdk), {
      recursive: true,
      filter: (src) => !/\.test\.ts$|__pycache__/.test(src),
    });
  mkdirSync(path.join(root, 'bin'));
  writeFileSync(path.join(root, 'bin', 'crawldeck-node'), LAUNCHER);
  chmodSync(path.join(root, 'bin', 'crawldeck-node'), 0o755);
  writeFileSync(path.join(root, 'VERSION'), version + '\n');
}

/** Builds the bundle into `outFile` (a .tar.gz). Takes a few seconds: callers cache it per version. */
export async function buildNodeBundle(outFile: string, version: string): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-bundle-'));
  try {
    await assembleNode(path.join(work, BUNDLE_DIR_NAME), version);
    mkdirSync(path.dirname(outFile), { recursive: true });
    await promisify(execFile)('tar', ['-czf', outFile, '-C', work, BUNDLE_DIR_NAME]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The executable of the npm package: npm links it from `node_modules/.bin`, so it finds the service beside itself
 * through its real path. Installed this way the node keeps its data in the user's home (`node_modules` is
 * replaced on every install), unless --data-dir says otherwise.
 */
const PACKAGE_BIN = `#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(realpathSync(fileURLToPath(import.meta.url))));
await import(pathToFileURL(join(root, 'packages', 'node', 'dist', 'crawldeck-node.mjs')).href);
`;

/**
 * The node as an npm package in `outDir` (then `npm pack`ed): the same folder as the bundle, with no dependencies
 * to install, and `crawldeck-node` as its executable.
 */
export async function buildNodePackage(outDir: string, version: string): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  await assembleNode(outDir, version);
  writeFileSync(path.join(outDir, 'bin', 'crawldeck-node.mjs'), PACKAGE_BIN);
  chmodSync(path.join(outDir, 'bin', 'crawldeck-node.mjs'), 0o755);
  const pkg = {
    name: 'crawldeck-node',
    version,
    description: 'Crawldeck worker node: joins a Crawldeck master and runs its spiders as tasks',
    type: 'module',
    bin: { 'crawldeck-node': 'bin/crawldeck-node.mjs' },
    files: ['bin', 'packages', 'VERSION'],
    engines: { node: '>=20.19' },
  };
  writeFileSync(path.join(outDir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
}

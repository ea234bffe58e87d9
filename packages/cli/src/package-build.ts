/**
 * The CLI and the node as npm packages anyone can install outside this repository: `crawldeck` (the operator's
 * commands: login, deploy, run, logs, tasks, results, schedules, nodes) bundled into one ES module with its
 * libraries, and `crawldeck-node` (the worker node, the folder the master's installer unpacks). Neither has a
 * dependency to download. The master itself (`crawldeck start`) runs from a checkout of the repository.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { VERSION } from '@crawldeck/shared';

const here = path.dirname(fileURLToPath(import.meta.url));

const REQUIRE_SHIM =
  "import { createRequire as __cdRequire } from 'node:module'; const require = __cdRequire(import.meta.url);";

const CLI_BIN = `#!/usr/bin/env node
import '../dist/crawldeck.mjs';
`;

/** Builds the `crawldeck` package in `outDir`. */
export async function buildCliPackage(outDir: string, version = VERSION): Promise<void> {
  const { build } = await import('esbuild');
  rmSync(outDir, { recursive: true, force: true });
  await build({
    entryPoints: [path.join(here, 'main.ts')],
    outfile: path.join(outDir, 'dist', 'crawldeck.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: REQUIRE_SHIM },
    // The master and the node are packages of their own: `crawldeck start` and `crawldeck node` say where they are.
    external: ['@crawldeck/server', '@crawldeck/node'],
    logLevel: 'silent',
  });
  mkdirSync(path.join(outDir, 'bin'));
  writeFileSync(path.join(outDir, 'bin', 'crawldeck.mjs'), CLI_BIN);
  chmodSync(path.join(outDir, 'bin', 'crawldeck.mjs'), 0o755);
  const pkg = {
    name: 'crawldeck',
    version,
    description: 'Crawldeck command line: deploy and run spiders, follow tasks and read results on a Crawldeck master',
    type: 'module',
    bin: { crawldeck: 'bin/crawldeck.mjs' },
    files: ['bin', 'dist'],
    engines: { node: '>=20.19' },
  };
  writeFileSync(path.join(outDir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
}

/** Builds both packages under `workDir` and packs them there; resolves with the two tarballs' paths. */
export async function packPackages(workDir: string, version = VERSION): Promise<{ cli: string; node: string }> {
  const { buildNodePackage } = await import('@crawldeck/node/bundle');
  const cliDir = path.join(workDir, 'crawldeck');
  const nodeDir = path.join(workDir, 'crawldeck-node');
  await buildCliPackage(cliDir, version);
  await buildNodePackage(nodeDir, version);
  const pack = async (dir: string) => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--silent', '--pack-destination', workDir, dir], {
      cwd: workDir,
    });
    return path.join(workDir, stdout.trim().split('\n').pop()!);
  };
  return { cli: await pack(cliDir), node: await pack(nodeDir) };
}

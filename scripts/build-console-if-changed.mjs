// `npm start` runs this before the master: it rebuilds the console only when what the build reads changed since
// the last build (a hash of those files kept in packages/console/dist/.source-hash), so a restart with unchanged
// sources skips the build entirely.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'packages/console/dist');
const stamp = path.join(dist, '.source-hash');
// Everything the console build reads: its own sources and config, the shared package it imports, the lockfile.
const INPUTS = [
  'packages/console/src',
  'packages/console/public',
  'packages/console/index.html',
  'packages/console/vite.config.ts',
  'packages/console/tsconfig.json',
  'packages/console/package.json',
  'packages/shared/src',
  'packages/shared/package.json',
  'package-lock.json',
];

function files(rel) {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs)
    .sort()
    .flatMap((name) => files(path.join(rel, name)));
}

function sourceHash() {
  const hash = createHash('sha256');
  for (const rel of INPUTS.flatMap(files)) {
    hash
      .update(rel)
      .update('\0')
      .update(readFileSync(path.join(root, rel)))
      .update('\0');
  }
  return hash.digest('hex');
}

const started = Date.now();
const current = sourceHash();
const built = existsSync(path.join(dist, 'index.html')) && existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (built === current) {
  console.log(`console is up to date (sources unchanged, checked in ${Date.now() - started} ms)`);
} else {
  console.log(built ? 'console sources changed: rebuilding' : 'console not built yet: building');
  const r = spawnSync('npm', ['run', 'build', '-w', '@crawldeck/console'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stamp, `${current}\n`);
}

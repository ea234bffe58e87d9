// `npm test`: typecheck, lint (import cycles included), format check, unit + API tests on SQLite and PostgreSQL,
// console build, browser e2e.
// Prints one closing line "tests: N passed, N failed" summed over every Vitest run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';

const out = 'test-output';
mkdirSync(out, { recursive: true });
let passed = 0;
let failed = 0;
let skipped = 0;
let ok = true;

function step(name, cmd, args) {
  const started = Date.now();
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  console.log(
    `=== ${name}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (r.status !== 0) ok = false;
  return r.status === 0;
}

function vitest(name, projects) {
  const report = `${out}/vitest-${name}.json`;
  rmSync(report, { force: true });
  const args = [
    'vitest',
    'run',
    ...projects.flatMap((p) => ['--project', p]),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ];
  step(name, 'npx', args);
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  } else {
    failed += 1;
  }
}

step('typecheck', 'npm', ['run', 'typecheck']);
step('lint', 'npm', ['run', 'lint']);
step('format', 'npx', ['prettier', '--check', '.']);
vitest('unit-api', ['unit', 'api-sqlite', 'api-postgres']);
if (step('build console', 'npm', ['run', 'build'])) vitest('e2e', ['e2e']);
else failed += 1;

console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(ok && failed === 0 ? 0 : 1);

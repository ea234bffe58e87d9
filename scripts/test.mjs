// `npm test`: typecheck, lint (import cycles included), format check, unit + API tests on SQLite and PostgreSQL
// (the files `apiOnce` lists in vitest.config.ts, whose subject is not the store, on SQLite only), console build,
// browser e2e.
// Prints one closing line "tests: N passed, N failed" summed over every Vitest run, after the names of the failed
// tests with the first line of their errors (the end of a long run's output is what a reader sees first).
// Each step's time goes to test-output/steps.json, and the slowest test files with their times to
// test-output/slowest-files.txt, so a suite that grows slower shows where.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';

const out = 'test-output';
mkdirSync(out, { recursive: true });
let passed = 0;
let failed = 0;
let skipped = 0;
let ok = true;
const failures = [];
const steps = [];
const fileTimes = [];

function step(name, cmd, args) {
  const started = Date.now();
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  console.log(
    `=== ${name}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (r.status !== 0) ok = false;
  steps.push({ name, seconds: Math.round((Date.now() - started) / 100) / 10, ok: r.status === 0 });
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
    failures.push(...failedTests(r));
    for (const f of r.testResults ?? [])
      fileTimes.push({ file: f.name.replace(process.cwd() + '/', ''), ms: (f.endTime ?? 0) - (f.startTime ?? 0) });
  } else {
    failed += 1;
  }
}

/** `file > test: first error line` for each failed test of a Vitest JSON report (and each file that failed to run). */
function failedTests(report) {
  const lines = [];
  const firstLine = (text) =>
    String(text ?? '')
      .split('\n')
      .find((l) => l.trim()) ?? '';
  for (const file of report.testResults ?? []) {
    const name = file.name.replace(process.cwd() + '/', '');
    const failedInFile = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failedInFile) lines.push(`${name} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    if (!failedInFile.length && file.status === 'failed') lines.push(`${name}: ${firstLine(file.message)}`);
  }
  return lines;
}

step('typecheck', 'npm', ['run', 'typecheck']);
step('lint', 'npm', ['run', 'lint']);
step('format', 'npx', ['prettier', '--check', '.']);
vitest('unit-api', ['unit', 'api-sqlite', 'api-postgres']);
if (step('build console', 'npm', ['run', 'build'])) vitest('e2e', ['e2e']);
else failed += 1;

writeFileSync(`${out}/steps.json`, JSON.stringify(steps, null, 2) + '\n');
fileTimes.sort((a, b) => b.ms - a.ms);
writeFileSync(
  `${out}/slowest-files.txt`,
  fileTimes.map((f) => `${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.file}`).join('\n') + '\n',
);
console.log(`\nsteps: ${steps.map((s) => `${s.name} ${s.seconds} s`).join(', ')}`);
if (failures.length) console.log(`\nfailed:\n${failures.map((f) => `  ${f.slice(0, 300)}`).join('\n')}`);
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(ok && failed === 0 ? 0 : 1);

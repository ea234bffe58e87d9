// `npm run bench [-- name…]`: runs the benchmarks in bench/ one after another (all of them, or those named, e.g.
// `npm run bench -- home-stats queue-priority`), each in a process of its own so that one's memory and threads do
// not weigh on the next. Each prints its own results, as ratios against a baseline measured in the same run; the
// variables a benchmark reads (BENCH_PG=1 for PostgreSQL, sizes, repeats) are passed through.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const all = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const asked = process.argv.slice(2);
const unknown = asked.filter((a) => !all.includes(a));
if (unknown.length) {
  console.error(`no such benchmark: ${unknown.join(', ')}\navailable: ${all.join(', ')}`);
  process.exit(2);
}
const results = [];
for (const name of asked.length ? asked : all) {
  const started = Date.now();
  console.log(`\n=== bench ${name}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.bench.ts`], { stdio: 'inherit' });
  results.push({ name, ok: r.status === 0, seconds: (Date.now() - started) / 1000 });
}
console.log('');
for (const r of results) console.log(`${r.ok ? 'ok    ' : 'FAILED'} ${r.name} (${r.seconds.toFixed(0)} s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);

import { logRows } from '../packages/server/src/features/tasks/ingest-rows.ts';
import { copyField } from '../packages/server/src/features/tasks/ingest-pg.store.ts';
import { flagErrorLines } from '@crawldeck/shared';
const N = 5700;
const lines = Array.from({ length: N }, (_, i) => `2026-11-23 08:00:00 [spider] INFO: scraped item ${i} from https://example.com/page/${i}`);
const body = JSON.stringify({ from: 0, lines });
function bench(name: string, f: () => unknown, n = 300) {
  for (let i = 0; i < 30; i++) f();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const c = process.cpuUsage(c0);
  console.log(name.padEnd(24), ((c.user + c.system) / 1000 / n).toFixed(3), 'ms cpu');
}
const CAND = /error|exception|traceback|critical/i;
for (let r = 0; r < 2; r++) {
  bench('parse', () => JSON.parse(body));
  bench('logRows', () => logRows(lines, 1, ''));
  bench('flagErrorLines', () => flagErrorLines(lines, ''));
  bench('cand per line', () => lines.map((l) => CAND.test(l)));
  bench('join', () => lines.join('\n'));
  bench('cand joined', () => CAND.test(lines.join('\n')));
  bench('includes x4 joined', () => { const j = lines.join('\n'); return j.includes('\\') || j.includes('\t') || j.includes('\r') || j.includes('\0'); });
  const rows = logRows(lines, 1, '');
  bench('copy text', () => { const a = new Array<string>(N); for (let i = 0; i < N; i++) a[i] = `abc\t${rows.first + i}\t${copyField(rows.msgs[i])}\t${rows.flags[i] ? 1 : 0}\n`; return Buffer.from(a.join(''), 'utf8'); });
}

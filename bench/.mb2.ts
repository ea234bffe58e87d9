import { flagErrorLines, isErrorLine } from '@crawldeck/shared';
import { copyField } from '../packages/server/src/features/tasks/ingest-pg.store.ts';
const N = 5700;
const lines = Array.from({ length: N }, (_, i) => `2026-11-23 08:00:00 [spider] INFO: scraped item ${i} from https://example.com/page/${i}`);
const body = JSON.stringify({ from: 0, lines });
function bench(name: string, f: () => unknown, n = 400) {
  for (let i = 0; i < 40; i++) f();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const c = process.cpuUsage(c0);
  console.log(name.padEnd(24), ((c.user + c.system) / 1000 / n).toFixed(3), 'ms cpu');
}
const CAND = /error|exception|traceback|critical/i;
function flagsA(msgs: string[], before: string) {
  const flags = new Array<boolean>(msgs.length);
  let prev = before;
  for (let i = 0; i < msgs.length; i++) {
    const l = msgs[i];
    flags[i] = (CAND.test(l) || (prev.charCodeAt(0) === 32 && prev.charCodeAt(1) === 32)) ? isErrorLine(l, prev) : false;
    prev = l;
  }
  return flags;
}
function flagsB(msgs: string[], before: string) {
  const flags = new Array<boolean>(msgs.length).fill(false);
  const text = msgs.join('\n').toLowerCase();
  let prev = before;
  for (let i = 0; i < msgs.length; i++) { const l = msgs[i]; if (prev.charCodeAt(0) === 32 && prev.charCodeAt(1) === 32) flags[i] = isErrorLine(l, prev); prev = l; }
  for (const w of ['error', 'exception', 'traceback', 'critical']) { let at = text.indexOf(w); if (at !== -1) return flagsA(msgs, before); }
  return flags;
}
const rows = { first: 1, msgs: lines, flags: flagErrorLines(lines) };
const id = 'abcdefabcdefabcdefabcdef';
function c1() { const a = new Array<string>(N); for (let i = 0; i < N; i++) a[i] = `${id}\t${rows.first + i}\t${copyField(rows.msgs[i])}\t${rows.flags[i] ? 1 : 0}\n`; return Buffer.from(a.join(''), 'utf8'); }
function c3() { let s = ''; for (let i = 0; i < N; i++) s += `${id}\t${rows.first + i}\t${copyField(rows.msgs[i])}\t${rows.flags[i] ? 1 : 0}\n`; return Buffer.from(s, 'utf8'); }
const SP = /[\\\t\n\r]/;
function c2() { const clean = !SP.test(rows.msgs.join('')); let s = ''; for (let i = 0; i < N; i++) s += id + '\t' + (rows.first + i) + '\t' + (clean ? rows.msgs[i] : copyField(rows.msgs[i])) + (rows.flags[i] ? '\t1\n' : '\t0\n'); return Buffer.from(s, 'utf8'); }
function c4() { let bytes = 0; for (let i = 0; i < N; i++) bytes += rows.msgs[i].length * 3 + 64; const buf = Buffer.allocUnsafe(bytes); let o = 0; for (let i = 0; i < N; i++) { o += buf.latin1Write(id + '\t' + (rows.first + i) + '\t', o); o += buf.utf8Write(copyField(rows.msgs[i]), o); o += buf.latin1Write(rows.flags[i] ? '\t1\n' : '\t0\n', o); } return buf.subarray(0, o); }
function c5() { let s = ''; for (let i = 0; i < N; i++) s += id + '\t' + (rows.first + i) + '\t' + copyField(rows.msgs[i]) + (rows.flags[i] ? '\t1\n' : '\t0\n'); return Buffer.from(s, 'utf8'); }
console.log(c1().equals(c3()), c1().equals(c2()), c1().equals(c4()), c1().equals(c5()));
for (let r = 0; r < 0; r++) {
  bench('flagErrorLines', () => flagErrorLines(lines, ''));
  bench('flagsA', () => flagsA(lines, ''));
  bench('flagsB', () => flagsB(lines, ''));
  bench('c1 join', c1);
  bench('c3 rope', c3);
  bench('c2 clean', c2);
  bench('c4 buffer', c4);
  bench('c5 concat', c5);
}
function c6() { const a = new Array<string>(3 * N); const p = id + '\t'; for (let i = 0, k = 0; i < N; i++) { a[k++] = p + (rows.first + i) + '\t'; a[k++] = copyField(rows.msgs[i]); a[k++] = rows.flags[i] ? '\t1\n' : '\t0\n'; } return Buffer.from(a.join(''), 'utf8'); }
function c7() { const a = new Array<string>(N); const p = id + '\t'; for (let i = 0; i < N; i++) { a[i] = p + (rows.first + i) + '\t' + copyField(rows.msgs[i]) + (rows.flags[i] ? '\t1\n' : '\t0\n'); } return Buffer.from(a.join(''), 'latin1'); }
function c8() { const a = new Array<string>(N); const p = id + '\t'; for (let i = 0; i < N; i++) { a[i] = p + (rows.first + i) + '\t' + rows.msgs[i] + (rows.flags[i] ? '\t1\n' : '\t0\n'); } return a.join(''); }
function c9() { const a = new Array<string>(N); for (let i = 0; i < N; i++) { a[i] = copyField(rows.msgs[i]); } return a; }
console.log(c1().equals(c6()));
for (let r = 0; r < 0; r++) {}
const big = c8();
for (let r = 0; r < 2; r++) { bench('byteLength', () => Buffer.byteLength(big, 'utf8'), 1000); bench('from utf8', () => Buffer.from(big, 'utf8'), 1000); bench('from latin1', () => Buffer.from(big, 'latin1'), 1000); bench('c7', c7, 1000); bench('c1', c1, 1000); }

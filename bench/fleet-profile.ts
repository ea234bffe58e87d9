/**
 * Reads a `.cpuprofile` written by the fleet benchmark (BENCH_PROFILE_DIR) and prints where the master's CPU went:
 * self time by function, the time under each of the product's own functions (self and callees), and the longest
 * stretches the master spent without going idle (what a request arriving then waited behind) with their top frames.
 * Run: `node --import tsx bench/fleet-profile.ts <file.cpuprofile> [rows]`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, rowsArg] = process.argv.slice(2);
const rows = Number(rowsArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfUs = new Map<number, number>();
// timeDeltas[i] is the time from sample i-1 to sample i: the time up to the next sample belongs to sample i.
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

const label = (n: ProfileNode) => {
  const f = n.callFrame;
  const where = f.url.replace(/^.*\/(packages|node_modules)\//, '$1/');
  return `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  self.set(label(n), (self.get(label(n)) ?? 0) + us);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + us);
  }
}

const print = (title: string, m: Map<string, number>, keep: (l: string) => boolean) => {
  console.log(`\n${title} (of ${(totalUs / 1000).toFixed(0)} ms sampled)`);
  for (const [l, us] of [...m]
    .filter(([l]) => keep(l))
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows))
    console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((us / totalUs) * 100).toFixed(1).padStart(5)} %  ${l}`);
};

print('Self time', self, () => true);
print('Time under the product’s functions', inclusive, (l) => l.includes('packages/server/src'));

/** The product (or library) frame nearest the top of a sample's stack: what that stretch of work was doing. */
function ownFrame(id: number): string {
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (l.includes('packages/server/src')) return l;
  }
  return label(byId.get(id)!);
}

const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
const busy: { ms: number; frames: Map<string, number> }[] = [];
let cur: { ms: number; frames: Map<string, number> } | undefined;
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i + 1] ?? 0;
  if (idle.has(id)) {
    if (cur) busy.push(cur);
    cur = undefined;
    return;
  }
  cur ??= { ms: 0, frames: new Map() };
  cur.ms += us / 1000;
  const f = ownFrame(id);
  cur.frames.set(f, (cur.frames.get(f) ?? 0) + us / 1000);
});
if (cur) busy.push(cur);
console.log('\nLongest stretches without idling (wall ms; the process may have been waiting for a CPU)');
for (const b of busy.sort((a, c) => c.ms - a.ms).slice(0, 8)) {
  const top = [...b.frames].sort((a, c) => c[1] - a[1]).slice(0, 4);
  console.log(`${b.ms.toFixed(0).padStart(7)} ms: ${top.map(([f, ms]) => `${f} ${ms.toFixed(0)} ms`).join(' | ')}`);
}

// A sample normally follows the last within about a millisecond; a long gap is time the master's thread did not
// run JavaScript or could not be interrupted: not scheduled (machine loaded) or blocked in a system call (disk).
const gaps: string[] = [];
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i + 1] ?? 0;
  if (us > 100_000) gaps.push(`${(us / 1000).toFixed(0)} ms after ${label(byId.get(id)!)}`);
});
console.log(`\nGaps of more than 100 ms between samples: ${gaps.length ? '' : 'none'}`);
for (const g of gaps.slice(0, 12)) console.log(`  ${g}`);

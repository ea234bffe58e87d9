// Initial console payload: the entry script, every chunk index.html preloads and its stylesheets, gzip-compressed
// (what a browser downloads before the first screen). Lazy routes, charts and the editor are not counted.
// Run after `npm run build`: node --import tsx bench/bundle.bench.ts
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = path.resolve(import.meta.dirname, '../packages/console/dist');
const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
const refs = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const size = (f: string) => {
  const buf = readFileSync(path.join(dist, f));
  return { raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
};
let raw = 0;
let gzip = 0;
for (const f of new Set(refs)) {
  const s = size(f);
  raw += s.raw;
  gzip += s.gzip;
  console.log(`${f.padEnd(48)} ${(s.gzip / 1024).toFixed(1).padStart(8)} kB gzip`);
}
const all = readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js'));
const total = all.reduce((n, f) => n + size(`assets/${f}`).gzip, 0);
console.log(
  `initial JS+CSS: ${(raw / 1024).toFixed(1)} kB raw, ${(gzip / 1024).toFixed(1)} kB gzip (target < 400 kB gzip)`,
);
console.log(`all ${all.length} JS chunks: ${(total / 1024).toFixed(1)} kB gzip (loaded on demand)`);

// Initial console payload: the entry script, every chunk index.html preloads and its stylesheets, gzip-compressed
// (what a browser downloads before the first screen). index.html is read as the master serves it, once per
// language (the `lang` cookie makes it preload that language's texts), so the language chunk is counted too.
// Lazy routes, charts and the editor are not counted.
// Run after `npm run build`: node --import tsx bench/bundle.bench.ts
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { LANGUAGES } from '../packages/shared/src/core.ts';
import { consoleIndex } from '../packages/server/src/http/console-index.ts';

const TARGET_KB = 300;
const dist = path.resolve(import.meta.dirname, '../packages/console/dist');
const size = (f: string) => {
  const buf = readFileSync(path.join(dist, f));
  return { raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
};
const kB = (bytes: number) => (bytes / 1024).toFixed(1);
const indexPage = consoleIndex(dist);

for (const lang of LANGUAGES) {
  const html = indexPage({ cookie: `lang=${lang}` }).body.toString();
  const refs = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  let raw = 0;
  let gzip = 0;
  console.log(`-- first screen in ${lang} --`);
  for (const f of new Set(refs)) {
    const s = size(f);
    raw += s.raw;
    gzip += s.gzip;
    console.log(`${f.padEnd(48)} ${kB(s.gzip).padStart(8)} kB gzip`);
  }
  console.log(
    `initial JS+CSS (${lang}): ${kB(raw)} kB raw, ${kB(gzip)} kB gzip (target < ${TARGET_KB} kB gzip: ${gzip / 1024 < TARGET_KB ? 'met' : 'NOT met'})`,
  );
}
const all = readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js'));
const total = all.reduce((n, f) => n + size(`assets/${f}`).gzip, 0);
console.log(`all ${all.length} JS chunks: ${kB(total)} kB gzip (loaded on demand)`);

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map)$/;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Writes a .br (brotli, level 9) and a .gz (gzip, level 9) copy next to every text file of the build, so the
 * master sends the console's files compressed without compressing them per request (@fastify/static
 * `preCompressed`). Level 9 rather than 11: on the project machine 11 made the copies 7 % smaller but took five
 * times as long, and `npm start` waits for this build. Files under 1 kB are left alone: compression would not pay.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = path.join(dir, name);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
  return {
    name: 'crawldeck-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = walk(outDir).filter((f) => COMPRESSIBLE.test(f));
      // zlib's async calls run on the thread pool: the files are compressed in parallel
      await Promise.all(
        files.map(async (file) => {
          const content = readFileSync(file);
          if (content.length < 1024) return;
          const [br, gz] = await Promise.all([
            brotliAsync(content, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }),
            gzipAsync(content, { level: 9 }),
          ]);
          writeFileSync(`${file}.br`, br);
          writeFileSync(`${file}.gz`, gz);
        }),
      );
    },
  };
}

/** Where the build lists each language's chunk for the master (which reads this name): `{ "en": ["assets/…js"], … }`. */
const LANGUAGE_CHUNKS_FILE = 'language-chunks.json';

/**
 * Lists the files of each language's chunk (`src/locales/bundle-<lang>.ts` and the chunks it imports that the
 * entry does not already bring), so the master can name them in index.html as preloads for the language in use.
 */
function languageChunks(): Plugin {
  return {
    name: 'crawldeck-language-chunks',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map(
        Object.values(bundle).flatMap((c) => (c.type === 'chunk' ? [[c.fileName, c] as const] : [])),
      );
      // a chunk with every chunk it imports statically, directly or not
      const closure = (fileName: string, seen = new Set<string>()): Set<string> => {
        if (seen.has(fileName)) return seen;
        seen.add(fileName);
        for (const f of chunks.get(fileName)?.imports ?? []) closure(f, seen);
        return seen;
      };
      const entry = [...chunks.values()].find((c) => c.isEntry);
      const inEntry = entry ? closure(entry.fileName) : new Set<string>();
      const byLanguage: Record<string, string[]> = {};
      for (const chunk of chunks.values()) {
        const lang = /[/\\]locales[/\\]bundle-([a-z]+)\.ts$/.exec(chunk.facadeModuleId ?? '')?.[1];
        if (lang) byLanguage[lang] = [...closure(chunk.fileName)].filter((f) => !inEntry.has(f));
      }
      this.emitFile({ type: 'asset', fileName: LANGUAGE_CHUNKS_FILE, source: JSON.stringify(byLanguage) });
    },
  };
}

// The console is a static SPA served by the master from packages/console/dist (see @crawldeck/server).
// VITE_API_BASE (deploy-time) overrides the API root; default '/api'.
// react-router publishes its production build (no development warnings) but its package exports always name the
// development one; the console's build takes the production files.
const reactRouterDist = path.resolve(import.meta.dirname, '../../node_modules/react-router/dist/production');

export default defineConfig({
  plugins: [react(), languageChunks(), precompress()],
  base: '/',
  resolve: {
    alias: [
      { find: /^react-router$/, replacement: path.join(reactRouterDist, 'index.mjs') },
      { find: /^react-router\/dom$/, replacement: path.join(reactRouterDist, 'dom-export.mjs') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: true },
    },
  },
});

import { constants as zlib } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import type { FastifyStaticOptions } from '@fastify/static';

type StaticResponse = Parameters<NonNullable<FastifyStaticOptions['setHeaders']>>[0];

/**
 * Compressed answers: brotli or gzip, whichever the browser prefers, for API answers and anything else over 1 kB.
 * Dynamic answers use a low brotli level (fast: compression runs on the request path); the console's files are
 * compressed once at build time at the highest level and served as they are (`preCompressed`).
 * Event streams are written straight to the socket, so they are never held back by a compressor.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });
}

/** Vite names the built assets after a hash of their content: a file under /assets never changes. */
const HASHED_ASSET = /[/\\]assets[/\\][^/\\]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+(\.br|\.gz)?$/;

/**
 * Options of the console's static files: the precompressed .br/.gz copies the build writes, cached for a year
 * and immutable for hashed assets, revalidated every time for index.html and the other unhashed files.
 */
export function consoleStaticOptions(): Pick<FastifyStaticOptions, 'preCompressed' | 'cacheControl' | 'setHeaders'> {
  return {
    preCompressed: true,
    // the header is set below, per file
    cacheControl: false,
    setHeaders(res: StaticResponse, filePath: string) {
      res.setHeader('cache-control', HASHED_ASSET.test(filePath) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  };
}

/**
 * The console's index.html as the master serves it. The console downloads only the texts of the language it shows
 * (one chunk per language); so that its first screen does not wait one more round trip for them, index.html names
 * that chunk as a module preload next to the ones the build wrote. The language is the one the console will pick:
 * its `lang` cookie (the console keeps it next to its stored choice), else the console's default language. The
 * browser's Accept-Language is not consulted: without a stored choice the console shows its default language
 * whatever the browser prefers, and preloading another language would fetch the wrong texts.
 *
 * The build lists each language's files in `language-chunks.json`; a build without that list gets index.html as
 * it is. Every variant is built and compressed once at start-up (brotli and gzip at their highest levels, as the
 * build does for the other files); the answer depends on the cookie, so no cache may hand it to another visitor.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import { DEFAULT_LANGUAGE, LANGUAGE_COOKIE, LANGUAGES, type Language } from '@crawldeck/shared/core';

/** Written by the console's build (vite.config.ts): `{ "en": ["assets/bundle-en-….js", …], "zh": […] }`. */
export const LANGUAGE_CHUNKS_FILE = 'language-chunks.json';

/** Files the static handler must leave to the index route: the page itself and its precompressed copies. */
export const INDEX_FILES = ['index.html', 'index.html.br', 'index.html.gz'];

const COOKIE_VALUE = new RegExp(`(?:^|;)\\s*${LANGUAGE_COOKIE}=([^;]*)`);

/** The language a request's Cookie header names, when it is one the console speaks. */
export function cookieLanguage(cookieHeader: string | undefined): Language | undefined {
  const value = COOKIE_VALUE.exec(cookieHeader ?? '')?.[1]?.trim();
  return (LANGUAGES as readonly string[]).includes(value ?? '') ? (value as Language) : undefined;
}

function readLanguageChunks(consoleDir: string): Partial<Record<Language, string[]>> {
  const file = path.join(consoleDir, LANGUAGE_CHUNKS_FILE);
  if (!existsSync(file)) return {};
  const listed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const chunks: Partial<Record<Language, string[]>> = {};
  for (const lang of LANGUAGES) {
    const files = listed[lang];
    if (Array.isArray(files)) chunks[lang] = files.filter((f): f is string => /^assets\/[\w.-]+\.js$/.test(f));
  }
  return chunks;
}

/** index.html with a module preload per file, placed before the page's own script so both load together. */
function withPreloads(html: string, files: string[]): string {
  const links = files.map((f) => `<link rel="modulepreload" crossorigin href="/${f}">`).join('\n    ');
  if (!links) return html;
  const at = html.search(/<script type="module"|<\/head>/);
  return at < 0 ? html : `${html.slice(0, at)}${links}\n    ${html.slice(at)}`;
}

/** One language's page as it goes over the wire, in each encoding a browser may ask for. */
interface EncodedPage {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

function encodings(html: string): EncodedPage {
  const identity = Buffer.from(html);
  return {
    identity,
    br: brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY } }),
    gzip: gzipSync(identity, { level: 9 }),
  };
}

/** The page for one request: its body and the content encoding (none for identity). */
export interface IndexAnswer {
  body: Buffer;
  encoding?: 'br' | 'gzip';
}

/** Builds every language's index.html from the console's build; answers the page for a request's headers. */
export function consoleIndex(
  consoleDir: string,
): (headers: { cookie?: string; 'accept-encoding'?: string }) => IndexAnswer {
  const html = readFileSync(path.join(consoleDir, 'index.html'), 'utf8');
  const chunks = readLanguageChunks(consoleDir);
  const pages = new Map(LANGUAGES.map((lang) => [lang, encodings(withPreloads(html, chunks[lang] ?? []))]));
  const negotiator = new Negotiator<'br' | 'gzip'>({ supportedValues: ['br', 'gzip'] });
  return (headers) => {
    const page = pages.get(cookieLanguage(headers.cookie) ?? DEFAULT_LANGUAGE)!;
    const encoding = headers['accept-encoding'] ? negotiator.negotiate(headers['accept-encoding']) : null;
    return encoding ? { body: page[encoding], encoding } : { body: page.identity };
  };
}

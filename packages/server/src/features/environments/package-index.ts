/**
 * Looking a package up in the configured index: a PEP 503 simple index for pip (the project page lists its files,
 * the versions are read from the file names) and an npm registry (the packument lists its versions). An exact
 * name lookup, which every index and mirror answers; pip indexes offer nothing else. The lookup is a request the
 * master makes for a user, so it goes through the outbound client: every connection (redirects included) only to
 * addresses the outbound policy allows; an index on the master's host or a private network needs its range in the
 * allow-list.
 */
import type { Dispatcher } from 'undici';
import {
  redactCredentials,
  urlPasswords,
  withoutCredentials,
  type EnvSettings,
  type PackageSearchHit,
} from '@crawldeck/shared';
import { fetchLimited, ResponseTooLarge } from '../../outbound/http.ts';
import { OutboundRefused } from '../../outbound/addresses.ts';
import { badGateway } from './errors.ts';

const DEFAULT_PIP_INDEX = 'https://pypi.org/simple';
const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';
const TIMEOUT_MS = 10_000;
const MAX_BYTES = 8 * 1024 * 1024;

/** The words of a failed request with every password and credentialed URL taken out. */
function failure(err: unknown, secrets: string[]): string {
  const e = err as { message?: string; cause?: { message?: string } };
  const text = [e.message, e.cause?.message].filter(Boolean).join(': ');
  return redactCredentials(text || String(err), secrets);
}

/**
 * Fetches `url` through `dispatcher`; a user name and password in it go in the Authorization header (a request
 * cannot carry them in its URL), and no message of ours repeats them.
 */
async function fetchText(url: string, accept: string, dispatcher: Dispatcher): Promise<string | undefined> {
  const headers: Record<string, string> = { accept };
  const u = new URL(url);
  const secrets = urlPasswords([url]);
  if (u.username || u.password) {
    const pair = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    secrets.push(headers.authorization.slice('Basic '.length));
  }
  let res;
  try {
    res = await fetchLimited(withoutCredentials(url), {
      dispatcher,
      maxBytes: MAX_BYTES,
      headers,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    if (err instanceof OutboundRefused) throw new OutboundRefused(failure(err, secrets));
    if (err instanceof ResponseTooLarge) throw badGateway('the package index answered too much');
    throw badGateway(`the package index did not answer: ${failure(err, secrets)}`);
  }
  if (res.status === 404) return undefined;
  if (res.status < 200 || res.status >= 300) throw badGateway(`the package index answered ${res.status}`);
  return res.body.toString('utf8');
}

/** Versions in the file names of a PEP 503 project page (`name-1.2.0-py3-none-any.whl`, `name-1.2.0.tar.gz`). */
export function versionsFromSimplePage(html: string, name: string): string[] {
  const norm = (s: string) => s.toLowerCase().replace(/[-_.]+/g, '-');
  const versions = new Set<string>();
  for (const m of html.matchAll(/<a\b[^>]*>([^<]+)<\/a>/gi)) {
    const file = m[1].trim();
    const wheel = /^(.+?)-([^-]+)-[^-]+-[^-]+-[^-]+\.whl$/.exec(file);
    const sdist = /^(.+)-([^-]+)\.(?:tar\.gz|zip|tar\.bz2)$/.exec(file);
    const hit = wheel ?? sdist;
    if (hit && norm(hit[1]) === norm(name)) versions.add(hit[2]);
  }
  return [...versions];
}

export async function searchIndex(
  target: 'pip' | 'npm',
  name: string,
  s: EnvSettings,
  dispatcher: Dispatcher,
): Promise<PackageSearchHit[]> {
  if (target === 'pip') {
    const index = (s.pip_index_url || DEFAULT_PIP_INDEX).replace(/\/+$/, '');
    const page = await fetchText(`${index}/${name.toLowerCase().replace(/[-_.]+/g, '-')}/`, 'text/html', dispatcher);
    const versions = page ? versionsFromSimplePage(page, name) : [];
    return versions.length ? [{ name, versions }] : [];
  }
  const registry = (s.npm_registry || DEFAULT_NPM_REGISTRY).replace(/\/+$/, '');
  const body = await fetchText(`${registry}/${name.replace('/', '%2f')}`, 'application/json', dispatcher);
  if (!body) return [];
  let doc: { name?: string; versions?: Record<string, unknown> };
  try {
    doc = JSON.parse(body) as typeof doc;
  } catch {
    throw badGateway('the npm registry answered something that is not JSON');
  }
  return [{ name: doc.name ?? name, versions: Object.keys(doc.versions ?? {}) }];
}

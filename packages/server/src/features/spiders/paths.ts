import { badRequest } from '../../http/errors.ts';

/**
 * The one path normaliser for spider files (routes, zip entries, store writers): the result is a relative POSIX
 * path without leading slash, `.` or empty segments. Refused with 400: `..` segments, absolute paths (`/x`, `C:`),
 * backslashes, NUL and control characters, percent-encoded dots/slashes/backslashes/NUL (the value is decoded
 * once and checked again, so `%2e%2e%2f` and double-encoded `%252e…` are refused), empty paths.
 */
export const MAX_PATH_LENGTH = 1024;
const MAX_SEGMENT_LENGTH = 255;
const MAX_DEPTH = 64;

function check(p: string, label: string, allowRoot: boolean): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p)) throw badRequest(`${label} must not contain NUL or control characters`);
  if (p.includes('\\')) throw badRequest(`${label} must not contain backslashes; use "/"`);
  if (/%(2e|2f|5c|00)/i.test(p)) throw badRequest(`${label} must not contain percent-encoded dots, slashes or NUL`);
  if (p.startsWith('/') && !(allowRoot && p === '/'))
    throw badRequest(`${label} must be relative to the spider folder (no leading "/")`);
  if (/^[A-Za-z]:/.test(p)) throw badRequest(`${label} must be relative to the spider folder (no drive letter)`);
  if (p.split('/').some((s) => s === '..')) throw badRequest(`${label} must not contain ".." segments`);
}

export function normalisePath(input: unknown, opts: { allowRoot?: boolean; label?: string } = {}): string {
  const label = opts.label ?? 'path';
  if (typeof input !== 'string') throw badRequest(`${label} is required`);
  const allowRoot = opts.allowRoot ?? false;
  check(input, label, allowRoot);
  if (input.includes('%')) {
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(input);
    } catch {
      decoded = undefined; // a literal '%' that is no escape: nothing hidden behind it
    }
    if (decoded !== undefined && decoded !== input) check(decoded, label, allowRoot);
  }
  const segments = input.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) {
    if (allowRoot) return '';
    throw badRequest(`${label} is required`);
  }
  if (segments.some((s) => s.trim() === '')) {
    if (segments.every((s) => s.trim() === '')) throw badRequest(`${label} is required`);
    throw badRequest(`${label} has a blank name`);
  }
  if (segments.length > MAX_DEPTH) throw badRequest(`${label} is nested too deeply (${MAX_DEPTH} levels at most)`);
  if (segments.some((s) => s.length > MAX_SEGMENT_LENGTH))
    throw badRequest(`${label} has a name longer than ${MAX_SEGMENT_LENGTH} characters`);
  const out = segments.join('/');
  if (out.length > MAX_PATH_LENGTH) throw badRequest(`${label} is longer than ${MAX_PATH_LENGTH} characters`);
  return out;
}

/** 'a/b/c' → ['a', 'a/b'] */
export function parentsOf(p: string): string[] {
  const parts = p.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/'));
  return out;
}

export function baseName(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? p : p.slice(i + 1);
}

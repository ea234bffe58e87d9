/**
 * Link/image policy of the release note markdown: react-markdown renders no raw HTML (no rehype-raw), and URLs
 * pass only if relative or with a safe protocol (http, https, mailto, tel). Images
 * only over http(s).
 */
import { isExternalLink } from '@crawldeck/shared/core';

/** Relative URLs: no scheme before the first '/', '?' or '#'. */
function isRelative(url: string): boolean {
  const colon = url.indexOf(':');
  if (colon === -1) return true;
  const cut = Math.min(...['/', '?', '#'].map((c) => (url.indexOf(c) === -1 ? Infinity : url.indexOf(c))));
  return cut < colon;
}

export function safeUrl(url: string, key: string): string {
  const u = url.trim();
  // control characters / whitespace inside a scheme are a classic bypass ("java\tscript:"): refuse them
  if (Array.from(u).some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return '';
  if (key === 'src') return /^https?:\/\//i.test(u) ? u : '';
  return isExternalLink(u.toLowerCase()) || isRelative(u) ? u : '';
}

/** Secrets presented to the master (tokens, node keys): made, hashed for storing, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const hashToken = (raw: string) => createHash('sha256').update(raw).digest('hex');
export const newRawToken = () => randomBytes(32).toString('base64url');

/** Constant-time comparison of a presented node key with the master's. */
export function nodeKeyMatches(expected: string, presented: string | string[] | undefined): boolean {
  const key = Array.isArray(presented) ? presented[0] : presented;
  if (!key) return false;
  const a = createHash('sha256').update(key).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

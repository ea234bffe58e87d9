import { badRequest } from './errors.ts';
import type { Keyset } from '../store/page.ts';

export type { Keyset };

/** The parts of a sort key: an integer (timestamp, sequence) or an id. */
export type KeyPart = 'int' | 'id';

const DIRS = { a: 'after', b: 'before', l: 'last' } as const;
const BAD = 'cursor is not valid: pass the `next`, `prev` or `last` of an earlier answer of the same list unchanged';

/** The opaque text of a cursor: base64url of a small JSON array `[dir, ...key]`. */
export function encodeCursor(at: Keyset): string {
  const parts = at.dir === 'last' ? ['l'] : [at.dir === 'after' ? 'a' : 'b', ...at.key];
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

function partOk(value: unknown, kind: KeyPart): boolean {
  if (kind === 'int') return typeof value === 'number' && Number.isSafeInteger(value);
  return typeof value === 'string' && value.length > 0 && value.length <= 64;
}

/** Reads a cursor for a list whose sort key has the parts `shape`; a cursor of any other form is a 400. */
export function decodeCursor<K extends unknown[]>(text: string, shape: KeyPart[]): Keyset<K> {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badRequest(BAD);
  }
  if (!Array.isArray(parts) || typeof parts[0] !== 'string' || !(parts[0] in DIRS)) throw badRequest(BAD);
  const dir = DIRS[parts[0] as keyof typeof DIRS];
  const key = parts.slice(1);
  if (dir === 'last') {
    if (key.length) throw badRequest(BAD);
    return { dir };
  }
  if (key.length !== shape.length || !key.every((v, i) => partOk(v, shape[i]))) throw badRequest(BAD);
  return { dir, key: key as K };
}

/**
 * Entity ids are 24 hex characters (4-byte seconds timestamp + 8 random bytes). The console reads an id of 24
 * zeros (EMPTY_ID) as "none", e.g. a task not bound to a node. Sortable by creation second, unguessable after that.
 */
export const EMPTY_ID = '000000000000000000000000';

export function newId(now: number = Date.now()): string {
  const ts = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0');
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(8));
  return ts + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{24}$/.test(value);
}

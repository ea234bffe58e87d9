/**
 * How item fields become columns of a results table in a data source. A column's kind is chosen from the first
 * non-null value of its field; a later value that does not fit widens the column (integer → double, anything else
 * → text), so no value is refused. Nested values (objects, arrays) are JSON.
 */
export const COLUMN_KINDS = ['boolean', 'bigint', 'double', 'json', 'text'] as const;
export type ColumnKind = (typeof COLUMN_KINDS)[number];

/** Columns every results table has besides the items' fields. */
export const ID_COLUMN = '_id';
export const TASK_COLUMN = 'task_id';
export const SEQ_COLUMN = '_seq';
export const DEDUP_COLUMN = '_dedup';
export const INTERNAL_COLUMNS = new Set([ID_COLUMN, TASK_COLUMN, SEQ_COLUMN, DEDUP_COLUMN]);

/** Most bytes of a column name both engines keep (PostgreSQL cuts names at 63 bytes). */
const MAX_NAME_BYTES = 63;

/** The kind a first value gets (undefined for null: the column waits for a value). */
export function kindOf(value: unknown): ColumnKind | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'bigint' : 'double';
  if (typeof value === 'string') return 'text';
  return 'json';
}

/** Whether a column of this kind stores the value as it is. */
export function fits(kind: ColumnKind, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  switch (kind) {
    case 'text':
    case 'json':
      return true;
    case 'boolean':
      return typeof value === 'boolean';
    case 'bigint':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'double':
      return typeof value === 'number';
    default: {
      const never: never = kind;
      throw new Error(`unknown column kind ${String(never)}`);
    }
  }
}

/** The kind a column becomes when a value does not fit it. */
export function widen(kind: ColumnKind, value: unknown): ColumnKind {
  if (kind === 'bigint' && typeof value === 'number') return 'double';
  return 'text';
}

/** Text of a value for a text column: strings as they are, everything else as JSON. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Replaces NUL (which PostgreSQL text and jsonb cannot hold) with U+FFFD, in strings and nested values. */
export function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
  if (Array.isArray(value)) return value.map(withoutNul);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[withoutNul(k) as string] = withoutNul(v);
    return out;
  }
  return value;
}

/**
 * The column name of an item field: NUL replaced, cut to 63 bytes at a character boundary, trailing spaces
 * removed (MySQL refuses them); '' becomes "_empty" and names of our own columns get an "item" prefix.
 */
export function columnName(field: string): string {
  let name = field.replaceAll('\u0000', '\uFFFD');
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    let out = '';
    for (const ch of name) {
      if (Buffer.byteLength(out + ch) > MAX_NAME_BYTES) break;
      out += ch;
    }
    name = out;
  }
  name = name.replace(/\s+$/, '');
  if (!name) return '_empty';
  if (INTERNAL_COLUMNS.has(name)) return `item${name}`;
  return name;
}

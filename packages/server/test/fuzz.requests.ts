/**
 * The malformed requests the fuzz test sends: for each parameter and body field of an OpenAPI operation in turn,
 * values a careless or hostile client might send, picked reproducibly from a seeded generator.
 */

export type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maxLength?: number;
  maxItems?: number;
  maximum?: number;
  nullable?: boolean;
  const?: unknown;
};
export interface Param {
  in: 'path' | 'query';
  name: string;
  required?: boolean;
  schema: Schema;
}
export interface Op {
  parameters?: Param[];
  requestBody?: { content?: Record<string, { schema: Schema }> };
}
export interface Req {
  method: string;
  path: string;
  query?: string;
  body?: string;
  contentType?: string;
  token?: string | null;
}

export const REQUEST_TIMEOUT_MS = 15_000;
const RAW_INFINITY = '__INFINITY__';
const RAW_HUGE = '__HUGE__';
const LONG = 'x'.repeat(70_000);
const NEST = (depth: number): unknown => (depth ? { a: NEST(depth - 1) } : 1);

/** Query and path values, as they appear in the URL (already encoded). */
const URL_VALUES = [
  'Infinity',
  '-Infinity',
  'NaN',
  '-1',
  '0',
  '1.5',
  '1e20',
  '99999999999999999999',
  '0x10',
  '',
  encodeURIComponent(LONG.slice(0, 5000)),
  'a%00b',
  '%00',
  '%ff%fe',
  '%2e%2e%2f%2e%2e%2fetc',
  encodeURIComponent('{"a":{"b":1}}'),
  '[]',
  'true',
  encodeURIComponent('𝒰nicode ✓ 中文 \u202e'),
  encodeURIComponent("'; DROP TABLE users; --"),
];
/** Path ids: encoded junk, NUL, traversal, wrong shapes. */
const ID_VALUES = [
  'a%00b',
  '%00',
  '%2e%2e',
  '%2e%2e%2f%2e%2e',
  'x'.repeat(300),
  '%ff%fe',
  'ffffffffffffffffffffffff',
  '000000000000000000000000',
  'Infinity',
  '-1',
  '1e20',
  encodeURIComponent('𝒰 中文'),
  "'%20OR%201=1--",
];
/** Body field values (RAW_INFINITY becomes the JSON number 1e400, which reads as Infinity; RAW_HUGE 99999999999999999999). */
const BODY_VALUES: unknown[] = [
  RAW_INFINITY,
  -1,
  0,
  1.5,
  1e20,
  RAW_HUGE,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  LONG,
  'a\u0000b',
  '\u0000',
  true,
  null,
  [],
  {},
  NEST(40),
  [1, 'a', null],
  Array.from({ length: 2000 }, () => ({ a: 'x' })),
  { 'k\u0000': 'v\u0000', n: RAW_INFINITY },
  '𝒰nicode ✓ 中文 \u202e',
  'Infinity',
  '99999999999999999999',
];
/** Whole bodies that are not what any route takes. */
const RAW_BODIES = [
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '1e400',
  '{"__proto__":{"x":1}}',
  '['.repeat(5000) + ']'.repeat(5000),
  '{"a":"\\u0000"}',
  '\u0000',
];

/** Deterministic sampler (mulberry32), so a failure reproduces run after run. */
export function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value the schema takes, so one field at a time can be the malformed one. */
function sample(s: Schema | undefined): unknown {
  if (!s) return 'fuzz';
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf) return sample(s.anyOf[0]);
  switch (s.type) {
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k) => [k, sample(s.properties?.[k])]));
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'string':
      return s.pattern === '^[0-9a-f]{24}$' ? 'ffffffffffffffffffffffff' : 'fuzz';
    default:
      return 'fuzz';
  }
}

const json = (v: unknown) =>
  JSON.stringify(v).replaceAll(`"${RAW_INFINITY}"`, '1e400').replaceAll(`"${RAW_HUGE}"`, '99999999999999999999');

/** Fields whose well-formed values would end the admin's own session; only malformed types are sent there. */
const SESSION_FIELDS = new Set(['password']);

export function requestsFor(
  path: string,
  method: string,
  op: Op,
  ids: Record<string, string>,
  pick: () => number,
): Req[] {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const query = params.filter((p) => p.in === 'query');
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  // The seeded spider's id takes the requests deeper than a 404; a DELETE gets an id that matches nothing.
  const baseId = (method !== 'DELETE' && ids[path]) || 'ffffffffffffffffffffffff';
  const fill = (overrides: Record<string, string> = {}) =>
    path.replace(/\{(\w+)\}/g, (_, n: string) => overrides[n] ?? baseId);
  const baseQuery = query
    .filter((p) => p.required)
    .map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema)))}`);
  const baseBody = bodySchema ? sample(bodySchema) : undefined;
  const out: Req[] = [];
  const add = (r: Partial<Req>) =>
    out.push({
      method,
      path: fill(),
      query: baseQuery.join('&'),
      body: baseBody === undefined ? undefined : json(baseBody),
      ...r,
    });
  for (const p of pathParams) for (const v of ID_VALUES) add({ path: fill({ [p.name]: v }) });
  for (const p of query) {
    for (const v of URL_VALUES)
      add({ query: [...baseQuery.filter((q) => !q.startsWith(`${p.name}=`)), `${p.name}=${v}`].join('&') });
    add({ query: [...baseQuery, `${p.name}=1&${p.name}=2`].join('&') }); // the same field twice
  }
  if (bodySchema?.type === 'object' && baseBody && typeof baseBody === 'object') {
    for (const [name, field] of Object.entries(bodySchema.properties ?? {})) {
      for (const v of BODY_VALUES) {
        if (SESSION_FIELDS.has(name) && typeof v === 'string') continue;
        if (pick() < 0.5) continue; // a seeded half of the values per field keeps the run short
        add({ body: json({ ...(baseBody as object), [name]: v }) });
      }
      if (field.type === 'array')
        add({
          body: json({
            ...(baseBody as object),
            [name]: Array.from({ length: (field.maxItems ?? 1000) + 1 }, () => sample(field.items)),
          }),
        });
    }
  }
  if (bodySchema || method !== 'GET') {
    for (const raw of RAW_BODIES) add({ body: raw });
    add({ body: 'name=x', contentType: 'text/plain' });
  }
  return out;
}

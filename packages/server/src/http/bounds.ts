import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorText } from '@crawldeck/shared';
import { badRequest } from './errors.ts';

/** Whether `value` holds a non-finite number anywhere; walks without building paths (ingest bodies hold 20,000 lines). */
function hasNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (v && typeof v === 'object') {
      // Only numbers and containers are worth a visit: the strings of a batch are never pushed.
      for (const child of Array.isArray(v) ? v : Object.values(v)) {
        if (typeof child === 'number' || (child && typeof child === 'object')) stack.push(child);
      }
    }
  }
  return false;
}

/** Where a non-finite number sits in `value` (`n`, `a.b.0`), or null when every number is finite. */
function nonFinitePath(value: unknown): string | null {
  if (!hasNonFinite(value)) return null;
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '' }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return path;
    if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) stack.push({ v: child, path: path ? `${path}.${k}` : k });
    }
  }
  return null;
}

/**
 * Refuses Infinity and NaN after validation. The validator's type coercion turns the query string `Infinity`
 * into a number and then skips the range checks for it (a JSON body's `1e400` reads as Infinity too), so an
 * integer's maximum alone does not keep it out.
 */
export async function refuseNonFiniteNumbers(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
  for (const [where, value] of [
    ['querystring', req.query],
    ['params', req.params],
    ['body', req.body],
  ] as const) {
    const path = nonFinitePath(value);
    if (path !== null) {
      const params = {
        where: where === 'querystring' ? 'query' : where === 'params' ? 'path' : where,
        field: path || '(root)',
      };
      throw badRequest(errorText('validation.finite', params), { code: 'validation.finite', params });
    }
  }
}

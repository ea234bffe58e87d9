import { NO_NUL_PATTERN, errorText, type ErrorCode, type ErrorParams } from '@crawldeck/shared';
import type { FastifyError } from 'fastify';
import type { Coded } from './errors.ts';

type AjvError = NonNullable<FastifyError['validation']>[number];

const WHERE: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** `/events/0` → `events.0`; a missing property is named after its parent. */
function fieldOf(e: AjvError): string {
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = (e.params as { missingProperty?: string }).missingProperty;
  if (e.keyword === 'required' && missing) return path ? `${path}.${missing}` : missing;
  return path || '(root)';
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'empty',
};

/** Allowed values of a field whose schema is a union of constants (its errors are one `const` per branch). */
function allowedValues(errors: AjvError[], path: string): string[] {
  const values: string[] = [];
  for (const e of errors) {
    if (e.instancePath !== path) continue;
    const p = e.params as { allowedValue?: unknown; allowedValues?: unknown[] };
    if (e.keyword === 'const') values.push(String(p.allowedValue));
    if (e.keyword === 'enum') values.push(...(p.allowedValues ?? []).map(String));
  }
  return [...new Set(values)];
}

function codeOf(e: AjvError, all: AjvError[]): { code: ErrorCode; extra?: ErrorParams } {
  const p = e.params as Record<string, unknown>;
  const limit = { limit: Number(p.limit) };
  switch (e.keyword) {
    case 'required':
      return { code: 'validation.required' };
    case 'type':
      return {
        code: 'validation.type',
        extra: {
          type: String(p.type)
            .split(',')
            .map((t) => TYPE_WORDS[t] ?? t)
            .join(' or '),
        },
      };
    case 'const':
    case 'enum':
    case 'anyOf': {
      const allowed = allowedValues(all, e.instancePath);
      return allowed.length
        ? { code: 'validation.enum', extra: { allowed: allowed.join(', ') } }
        : { code: 'validation.invalid' };
    }
    case 'minLength':
      return { code: 'validation.min_length', extra: limit };
    case 'maxLength':
      return { code: 'validation.max_length', extra: limit };
    case 'minimum':
    case 'exclusiveMinimum':
      return { code: 'validation.minimum', extra: limit };
    case 'maximum':
    case 'exclusiveMaximum':
      return { code: 'validation.maximum', extra: limit };
    case 'minItems':
      return { code: 'validation.min_items', extra: limit };
    case 'maxItems':
      return { code: 'validation.max_items', extra: limit };
    case 'uniqueItems':
      return { code: 'validation.unique_items' };
    case 'pattern':
      return { code: p.pattern === NO_NUL_PATTERN ? 'validation.no_nul' : 'validation.pattern' };
    case 'format':
      return { code: 'validation.format', extra: { format: String(p.format) } };
    default:
      return { code: 'validation.invalid' };
  }
}

/**
 * A request that failed its schema, as a catalogued code naming the field, and readable English: never the
 * validator's own wording ("must be equal to constant").
 */
export function validationError(err: FastifyError): Coded & { message: string } {
  const all = err.validation ?? [];
  const first = all[0];
  const where = WHERE[err.validationContext ?? ''] ?? 'request';
  if (!first)
    return {
      code: 'validation.invalid',
      params: { where, field: '(root)' },
      message: errorText('validation.invalid', { where, field: '(root)' }),
    };
  const { code, extra } = codeOf(first, all);
  const params: ErrorParams = { where, field: fieldOf(first), ...extra };
  return { code, params, message: errorText(code, params) };
}

import { Type, type IntegerOptions, type StringOptions } from '@sinclair/typebox';
import { MAX_PAGE_SIZE } from './constants.ts';

/**
 * Building blocks of every request schema, so no input reaches a handler or the store unbounded: strings have
 * a maximum length and cannot carry the NUL character (PostgreSQL text cannot hold it), integers have a finite
 * range, ids have their exact shape.
 */

/** A string without the NUL character. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
/** What a refusal by NO_NUL_PATTERN says, in words the console can show. */
export const NO_NUL_MESSAGE = 'must not contain the NUL character';

/** A string of at most `maxLength` characters, without NUL (an own `pattern` replaces the NUL rule). */
export function Str(maxLength: number, options: StringOptions = {}) {
  return Type.String({ pattern: NO_NUL_PATTERN, ...options, maxLength });
}

/** An integer in [minimum, maximum]. */
export function Int(minimum: number, maximum: number, options: IntegerOptions = {}) {
  return Type.Integer({ ...options, minimum, maximum });
}

/** An entity id: 24 lowercase hex characters. */
export const Id = Type.String({ pattern: '^[0-9a-f]{24}$', maxLength: 24 });

/** The id in a path or query where an unknown shape answers 404 rather than 400: bounded, without NUL. */
export const LooseId = Str(64);

/** `{ id }` path parameters of the `/…/:id` routes. */
export const IdParams = Type.Object({ id: Id });
export const LooseIdParams = Type.Object({ id: LooseId });

/**
 * Largest page number of a list: the offset (page_num − 1) × page_size stays a safe integer for the largest
 * page size, so both stores accept it.
 */
export const MAX_PAGE_NUM = Math.floor(Number.MAX_SAFE_INTEGER / MAX_PAGE_SIZE);

import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Building blocks of the response schemas. The master declares one on every route: Fastify serialises answers
 * by it (properties it does not describe are dropped), and the OpenAPI document shows it.
 */

/** The success envelope around `data`; lists add `total`. */
export function Ok<T extends TSchema>(data: T) {
  return Type.Object({
    status: Type.Literal('ok'),
    message: Type.String(),
    data,
    total: Type.Optional(Type.Number()),
  });
}

/** `value` or null. */
export function Nullable<T extends TSchema>(value: T) {
  return Type.Union([value, Type.Null()]);
}

/** An ISO 8601 time, null when the moment has not happened (never used, never synced …). */
export const IsoTime = Nullable(Type.String());

/** `data: null`: the call answers only with its status. */
export const OkNull = Ok(Type.Null());

/** The `{ 200: … }` map of a route's `response` schema. */
export function okResponse<T extends TSchema>(data: T) {
  return { 200: Ok(data) };
}

/** Bytes the route sends as they are (Fastify never serialises a Buffer): a file download or a stored blob. */
export const BinaryResponse = Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' });

import { Nullable } from './responses.ts';
import { Int, MAX_PAGE_NUM } from './bounds.ts';
import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The `page_num` / `page_size` pair of every list call (1-based page), as TypeBox fields to spread into a query schema.
 * Each list keeps its own largest page (the all-spiders call needs 99999999, a delivery log far less).
 */
export function pageFields(maxPageSize: number) {
  return {
    page_num: Type.Optional(Int(1, MAX_PAGE_NUM)),
    page_size: Type.Optional(Int(1, maxPageSize)),
  };
}

/**
 * Response envelopes as TypeBox schemas: `{status, message, data}` of every /api answer, and the list form
 * whose `total` says how many rows the whole list has, the page aside. The server declares them on its routes
 * (they also shape the OpenAPI document); the console derives its types from the same definitions.
 */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ status: Type.Literal('ok'), message: Type.String(), data, total: Type.Optional(Type.Number()) });
}

export function EnvelopeList<T extends TSchema>(item: T) {
  return Type.Object({
    status: Type.Literal('ok'),
    message: Type.String(),
    data: Type.Array(item),
    total: Type.Optional(Type.Number()),
  });
}

/** Answers without data (`data: null`). */
export const NullResponse = Envelope(Type.Null());

/** A stream the route writes itself (Server-Sent Events): no JSON envelope. */
export const EventStreamResponse = Type.Unknown({ description: 'text/event-stream' });

/** A file download the route sends itself (CSV, raw bytes): no JSON envelope. */
export const CsvResponse = Type.Unknown({ description: 'text/csv' });

/** Makes a schema accept null as well. */
export { Nullable };

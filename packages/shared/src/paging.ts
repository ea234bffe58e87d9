import { Nullable } from './responses.ts';
import { Int, MAX_PAGE_NUM } from './bounds.ts';
import { Type, type Static, type TSchema } from '@sinclair/typebox';

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

/**
 * The most rows a list counts for its `total`, and the deepest row a `page_num` jump reaches. Longer lists answer
 * `total_capped: true` with this total and are walked on by `cursor` (`next`, `prev`, `last` of the answer).
 */
export const LIST_COUNT_CAP = 10_000;

/** `cursor`: where a keyset page starts, as a list answer gave it (`next`, `prev` or `last`); opaque to clients. */
export const cursorField = () => ({ cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })) });

/**
 * A list walked by keyset: the page, `total` (exact up to LIST_COUNT_CAP, then `total_capped`), and the cursors of
 * the page after this one, the page before it and the last page (null where there is none).
 */
export function KeysetEnvelopeList<T extends TSchema>(item: T) {
  return Type.Object({ ...EnvelopeList(item).properties, ...keysetFields });
}

const keysetFields = {
  total_capped: Type.Optional(Type.Boolean()),
  next: Type.Optional(Nullable(Type.String())),
  prev: Type.Optional(Nullable(Type.String())),
  last: Type.Optional(Nullable(Type.String())),
};
export const KeysetFields = Type.Object(keysetFields);
/** What a keyset list answers besides `data` and `total`: whether the total is capped, and the cursors. */
export type KeysetFields = Static<typeof KeysetFields>;

/** Answers without data (`data: null`). */
export const NullResponse = Envelope(Type.Null());

/** A stream the route writes itself (Server-Sent Events): no JSON envelope. */
export const EventStreamResponse = Type.Unknown({ description: 'text/event-stream' });

/** A file download the route sends itself (CSV, raw bytes): no JSON envelope. */
export const CsvResponse = Type.Unknown({ description: 'text/csv' });

/** Makes a schema accept null as well. */
export { Nullable };

/**
 * A big node list answered as it is written: the rows go out in chunks, each serialized by the list's own response
 * schema, with other requests, heartbeats and timers let through between chunks. The whole list of a fleet of
 * thousands of nodes is megabytes of JSON; written in one go it would hold every other request behind it.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { NodeListItem } from '@crawldeck/shared';
import { nextTurn } from './chunks.ts';

/** Rows per chunk, and the size from which a list is written in chunks. */
export const LIST_CHUNK = 500;

const Rows = Type.Array(NodeListItem);

async function* envelope(rows: NodeListItem[], total: number, serialize: (rows: NodeListItem[]) => string) {
  yield '{"status":"ok","message":"success","data":[';
  for (let i = 0; i < rows.length; i += LIST_CHUNK) {
    if (i > 0) await nextTurn();
    // Each chunk is a JSON array: its items, without the brackets, continue the one array of the answer.
    yield (i > 0 ? ',' : '') + serialize(rows.slice(i, i + LIST_CHUNK)).slice(1, -1);
  }
  yield `],"total":${total}}`;
}

/** Sends the list envelope (`ok(rows, total)`) in chunks. */
export function sendInChunks(reply: FastifyReply, rows: NodeListItem[], total: number): FastifyReply {
  // Fastify's types expect an object schema; an array schema compiles and serializes the same way.
  const serialize = reply.compileSerializationSchema(Rows) as unknown as (rows: NodeListItem[]) => string;
  return reply.type('application/json; charset=utf-8').send(Readable.from(envelope(rows, total, serialize)));
}

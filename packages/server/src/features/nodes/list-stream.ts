/**
 * The node list's answers. A fleet of thousands of nodes is megabytes of JSON:
 *
 * - The list's serializer is built when the app is ready, with the validators of its nullable fields (host facts,
 *   metrics, times). Built on a first request, it made that request take 50–150 ms more than the next ones.
 * - A big answer goes out in chunks, with other requests, heartbeats and timers let through between them; written
 *   in one go it would hold every other request behind it.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NodeListItem } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { nextTurn } from './chunks.ts';

/** Rows per chunk, and the size from which a list is written in chunks. */
export const LIST_CHUNK = 500;

const Rows = Type.Array(NodeListItem);
type SerializeRows = (rows: NodeListItem[]) => string;

const HEAD = '{"status":"ok","message":"success","data":';

export class ListWriter {
  private serializeRows: SerializeRows | undefined;

  /** Whether the serializer is built (from when the app is ready). */
  get prepared(): boolean {
    return this.serializeRows !== undefined;
  }

  /** Builds the serializer with the app's compiler (which compiles its validators at once), so that no request does. */
  prepare(app: FastifyInstance): void {
    const compile = app.serializerCompiler;
    if (!compile) throw new Error('the node list needs the app’s serializer compiler');
    const serializeRows = compile({ schema: Rows, method: 'GET', url: '/api/nodes', httpStatus: '200' });
    this.serializeRows = serializeRows as SerializeRows;
  }

  /** Sends the list envelope (`ok(rows, total)`): in one piece when small, in chunks when big. */
  send(reply: FastifyReply, rows: NodeListItem[], total: number): FastifyReply {
    const serialize = this.serializeRows;
    if (!serialize) throw new Error('the node list writer is not prepared');
    reply.type('application/json; charset=utf-8');
    if (rows.length <= LIST_CHUNK) return reply.send(`${HEAD}${serialize(rows)},"total":${total}}`);
    return reply.send(Readable.from(inChunks(rows, total, serialize)));
  }
}

async function* inChunks(rows: NodeListItem[], total: number, serialize: SerializeRows) {
  yield `${HEAD}[`;
  for (let i = 0; i < rows.length; i += LIST_CHUNK) {
    if (i > 0) await nextTurn();
    // Each chunk is a JSON array: its items, without the brackets, continue the one array of the answer.
    yield (i > 0 ? ',' : '') + serialize(rows.slice(i, i + LIST_CHUNK)).slice(1, -1);
  }
  yield `],"total":${total}}`;
}

const writers = new WeakMap<AppContext, ListWriter>();

/** The writer of an app's node list answers (one per app). */
export function listWriterFor(ctx: AppContext): ListWriter {
  let writer = writers.get(ctx);
  if (!writer) {
    writer = new ListWriter();
    writers.set(ctx, writer);
  }
  return writer;
}

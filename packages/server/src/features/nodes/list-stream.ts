/**
 * The node list's answers. A fleet of thousands of nodes is megabytes of JSON:
 *
 * - The list's serializer is built, and run once on sample rows, when the app is ready. Built on a first request,
 *   it also compiled there the validators of its nullable fields (host facts, metrics, times) on their first use:
 *   the master's first list request took 50–150 ms more than the next ones.
 * - A big answer goes out in chunks, with other requests, heartbeats and timers let through between them; written
 *   in one go it would hold every other request behind it.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NodeListItem } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { nextTurn } from '../../store/chunks.ts';

/** Rows per chunk, and the size from which a list is written in chunks. */
export const LIST_CHUNK = 500;

const Rows = Type.Array(NodeListItem);
type SerializeRows = (rows: NodeListItem[]) => string;

const HEAD = '{"status":"ok","message":"success","data":';

/** Rows that reach every field, null and not, so that running the serializer on them compiles all it needs. */
function sampleRows(): NodeListItem[] {
  const ts = new Date(0).toISOString();
  const base = {
    _id: '0'.repeat(24),
    name: 'sample',
    description: '',
    type: 'worker' as const,
    is_master: false,
    status: 'online' as const,
    enabled: true,
    max_runners: 1,
    running: 0,
    ip: '',
  };
  return [
    {
      ...base,
      systemInfo: { os: 'linux', arch: 'x64', num_cpu: 2, hostname: 'sample' },
      metrics: { cpu: 1.5, mem: 2, disk: 3, mem_total: 4, disk_total: 5, running: 0 },
      last_seen_ts: ts,
      create_ts: ts,
      update_ts: ts,
    },
    { ...base, systemInfo: null, metrics: null, last_seen_ts: null, create_ts: null, update_ts: null },
  ];
}

export class ListWriter {
  private serializeRows: SerializeRows | undefined;

  /** Whether the serializer is built and has run (from when the app is ready). */
  get prepared(): boolean {
    return this.serializeRows !== undefined;
  }

  /** Builds the serializer with the app's compiler and runs it once on sample rows, so that no request does. */
  prepare(app: FastifyInstance): void {
    const compile = app.serializerCompiler;
    if (!compile) throw new Error('the node list needs the app’s serializer compiler');
    const serializeRows = compile({ schema: Rows, method: 'GET', url: '/api/nodes', httpStatus: '200' });
    serializeRows(sampleRows());
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

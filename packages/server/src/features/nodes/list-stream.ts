/**
 * The node list's answers, written from each row's JSON as kept between requests. A fleet of thousands of nodes
 * is megabytes of JSON, most of it unchanged from one request to the next (a node's stored facts change rarely, its
 * live state every heartbeat or two): each row is serialized again only when something it shows changed.
 *
 * - The row serializer is built, and run once on sample rows, when the routes are registered: built on a first
 *   request, it compiled the validators of its nullable fields there, and that first request took tens of ms more.
 * - A big answer goes out in chunks, with other requests, heartbeats and timers let through between them; written
 *   in one go it would hold every other request behind it.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NodeListItem, NodeMetricsSchema } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { nextTurn } from './chunks.ts';

/** Rows per chunk, and the size from which a list is written in chunks. */
export const LIST_CHUNK = 500;

/** A row of an answer: the node as last read from the store, and as it is shown now (with its live state). */
export interface ListRow {
  stored: NodeListItem;
  shown: NodeListItem;
}

type SerializeRow = (row: NodeListItem) => string;

const METRIC_KEYS = Object.keys(NodeMetricsSchema.properties) as (keyof NonNullable<NodeListItem['metrics']>)[];

/**
 * Each row's JSON with what it was written from, by the stored row: a stored row is replaced, never changed in
 * place, when the store's copy changes (edit, status, a read by another master's write), so the entry of a row
 * read again or of a deleted node goes with it.
 */
const written = new WeakMap<NodeListItem, { shown: NodeListItem; json: string }>();

function sameMetrics(a: NodeListItem['metrics'], b: NodeListItem['metrics']): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return METRIC_KEYS.every((k) => a[k] === b[k]);
}

/** Whether the row shows the same as when it was written (host facts are replaced, never changed in place). */
function sameShown(a: NodeListItem, b: NodeListItem): boolean {
  for (const k of Object.keys(b) as (keyof NodeListItem)[]) {
    if (a[k] === b[k]) continue;
    if (k !== 'metrics' || !sameMetrics(a.metrics, b.metrics)) return false;
  }
  return Object.keys(a).length === Object.keys(b).length;
}

/** Rows that exercise every field, null and not, so that building the serializer compiles all it needs. */
function sampleRows(): NodeListItem[] {
  const metrics = { cpu: 1.5, mem: 2, disk: 3, mem_total: 4, disk_total: 5, running: 0 };
  const systemInfo = { os: 'linux', arch: 'x64', num_cpu: 2, hostname: 'sample' };
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
  const ts = new Date(0).toISOString();
  return [
    { ...base, systemInfo, metrics, last_seen_ts: ts, create_ts: ts, update_ts: ts },
    { ...base, systemInfo: null, metrics: null, last_seen_ts: null, create_ts: null, update_ts: null },
  ];
}

export class ListWriter {
  private serializeRow: SerializeRow | undefined;
  /** Rows serialized so far (tests check that an unchanged row is not written again). */
  rowsWritten = 0;

  /** Builds the row serializer and runs it once on sample rows, so that no request pays for either. */
  prepare(app: FastifyInstance): void {
    const compile = app.serializerCompiler;
    if (!compile) throw new Error('the node list needs the app’s serializer compiler');
    const serializeRow = compile({ schema: NodeListItem, method: 'GET', url: '/api/nodes', httpStatus: '200' });
    for (const row of sampleRows()) serializeRow(row);
    this.serializeRow = serializeRow as SerializeRow;
  }

  /** A row's JSON: as written before when the row shows the same, else written now and kept. */
  rowJson(row: ListRow): string {
    const kept = written.get(row.stored);
    if (kept && sameShown(kept.shown, row.shown)) return kept.json;
    if (!this.serializeRow) throw new Error('the node list writer is not prepared');
    const json = this.serializeRow(row.shown);
    this.rowsWritten++;
    // The metrics object is copied: what is compared next time is what was written, whoever holds the original.
    const metrics = row.shown.metrics && { ...row.shown.metrics };
    written.set(row.stored, { shown: { ...row.shown, metrics }, json });
    return json;
  }

  /** Sends the list envelope (`ok(rows, total)`): in one piece when small, in chunks when big. */
  send(reply: FastifyReply, rows: ListRow[], total: number): FastifyReply {
    reply.type('application/json; charset=utf-8');
    if (rows.length <= LIST_CHUNK) return reply.send(`${HEAD}${this.join(rows)}],"total":${total}}`);
    return reply.send(Readable.from(this.inChunks(rows, total)));
  }

  private join(rows: ListRow[]): string {
    return rows.map((r) => this.rowJson(r)).join(',');
  }

  private async *inChunks(rows: ListRow[], total: number) {
    yield HEAD;
    for (let i = 0; i < rows.length; i += LIST_CHUNK) {
      if (i > 0) await nextTurn();
      yield (i > 0 ? ',' : '') + this.join(rows.slice(i, i + LIST_CHUNK));
    }
    yield `],"total":${total}}`;
  }
}

const HEAD = '{"status":"ok","message":"success","data":[';

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

/**
 * The node list as the API answers it, kept presented in memory between changes: a fleet of thousands of nodes is
 * not read and presented again on every request. The stored rows change only when a node registers, is edited or
 * deleted, changes status, or at the periodic last-seen flush; what changes between those (status, running count,
 * metrics, last heard) is taken from the live sessions at request time for the rows answered.
 *
 * - An edit, a deletion or a node not in the list yet asks for a fresh read, which the next request waits for.
 * - A status change of a listed node is applied in place (also to the result of a read running meanwhile).
 * - Older than `maxAgeMs` (what other masters sharing the store wrote): answered as it is while a fresh read runs.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { NodeListItem, NodeListQuery } from '@crawldeck/shared';
import type { NodeStatusEvent } from '../../events.ts';
import { iso, paging } from '../../http/envelope.ts';
import type { AppContext } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { listNodes } from './nodes.store.ts';
import { presentNode } from './nodes.service.ts';
import { statusOf, type Session } from './sessions.ts';
import type { TaskRuntime } from './runtime.ts';

interface ListedNode {
  item: NodeListItem;
  /** Last heard as stored (a live session may know a later time). */
  lastSeen: number;
  /** Name, description, address and host name in lower case, for the keyword filter. */
  search: string;
}

/** A list row: the node with the host facts the list shows (executables and Python are in the node's detail). */
function listed(row: Parameters<typeof presentNode>[0]): ListedNode {
  const n = presentNode(row);
  const si = n.systemInfo;
  const item: NodeListItem = {
    ...n,
    systemInfo: si && { os: si.os, arch: si.arch, num_cpu: si.num_cpu, hostname: si.hostname },
  };
  const search = [n.name, n.description, n.ip, si?.hostname ?? ''].join('\n').toLowerCase();
  return { item, lastSeen: Number(row.last_seen_ts ?? 0), search };
}

export class NodeList {
  private nodes: ListedNode[] = [];
  private byId = new Map<string, ListedNode>();
  private builtAt = 0;
  /** Reads asked for (each change to the stored rows asks for one) and the one the list reflects. */
  private wanted = 1;
  private built = 0;
  private building: Promise<void> | undefined;
  /** Status changes heard while a read runs: applied to its result, which may predate them. */
  private heardDuringRead: NodeStatusEvent[] = [];
  /** Reads of the stored rows so far (tests check that requests and heartbeats cause none). */
  reads = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly live: (nodeId: string) => Session | undefined,
    private readonly log: FastifyBaseLogger,
    readonly maxAgeMs: number,
  ) {}

  /** The stored rows changed (edit, deletion): the next request reads them again. */
  markDirty(): void {
    this.wanted++;
  }

  readonly onStatus = (ev: NodeStatusEvent): void => {
    if (this.building) this.heardDuringRead.push(ev);
    if (!this.apply(ev)) this.wanted++;
  };

  /** Applies a status change in place; false when the node is not listed (yet). */
  private apply(ev: NodeStatusEvent): boolean {
    const n = this.byId.get(ev.nodeId);
    if (!n) return false;
    n.item = { ...n.item, status: ev.status, ...(ev.status === 'offline' ? { running: 0 } : {}) };
    return true;
  }

  /** The rows matching the query (one page of them when it asks for one) and how many match in all. */
  async query(q: NodeListQuery): Promise<{ rows: NodeListItem[]; total: number }> {
    let hits = await this.current();
    const keyword = q.keyword?.trim().toLowerCase();
    if (keyword) hits = hits.filter((n) => n.search.includes(keyword));
    if (q.status) hits = hits.filter((n) => this.statusNow(n) === q.status);
    const total = hits.length;
    if (q.page_num !== undefined || q.page_size !== undefined) {
      const { limit, offset } = paging(q, 10);
      hits = hits.slice(offset, offset + limit);
    }
    return { rows: hits.map((n) => this.withLive(n)), total };
  }

  private statusNow(n: ListedNode): NodeListItem['status'] {
    const s = this.live(n.item._id);
    return s ? statusOf(s) : n.item.status;
  }

  /** The row with what the live session knows now, where this master holds the node. */
  private withLive(n: ListedNode): NodeListItem {
    const s = this.live(n.item._id);
    if (!s) return n.item;
    return {
      ...n.item,
      status: statusOf(s),
      running: s.active.size,
      metrics: s.metrics ?? n.item.metrics,
      last_seen_ts: iso(Math.max(s.lastSeenTs, n.lastSeen)),
    };
  }

  /** Waits only for the reads asked for before this request (at most two), never for later ones. */
  private async current(): Promise<ListedNode[]> {
    const need = this.wanted;
    while (this.built < need) await this.rebuild();
    if (Date.now() - this.builtAt > this.maxAgeMs && !this.building) {
      this.rebuild().catch((err: unknown) => this.log.warn({ err }, 'reading the node list failed'));
    }
    return this.nodes;
  }

  /** One read at a time. */
  private rebuild(): Promise<void> {
    this.building ??= (async () => {
      const generation = this.wanted;
      const startedAt = Date.now();
      this.heardDuringRead = [];
      this.reads++;
      try {
        const nodes = (await listNodes(this.db)).map(listed);
        this.nodes = nodes;
        this.byId = new Map(nodes.map((n) => [n.item._id, n]));
        this.builtAt = startedAt;
        this.built = Math.max(this.built, generation);
        for (const ev of this.heardDuringRead) this.apply(ev);
      } finally {
        this.heardDuringRead = [];
        this.building = undefined;
      }
    })();
    return this.building;
  }
}

const lists = new WeakMap<AppContext, NodeList>();

/** The node list of an app (one per app, following its runtime's sessions and the node status events). */
export function nodeListFor(ctx: AppContext, rt: TaskRuntime): NodeList {
  let list = lists.get(ctx);
  if (!list) {
    const created = new NodeList(ctx.store.db, (id) => rt.liveSession(id), ctx.log, rt.heartbeats.flushMs);
    ctx.events.on('node.status', created.onStatus);
    ctx.onClose(() => {
      ctx.events.off('node.status', created.onStatus);
    });
    lists.set(ctx, created);
    list = created;
  }
  return list;
}

/**
 * The node list as the API answers it, kept presented in memory between changes: a fleet of thousands of nodes is
 * not read and presented again on every request. The stored rows change only when a node registers, is edited or
 * deleted, changes status, or at the periodic last-seen flush; what changes between those (status, running count,
 * metrics, last heard) is taken at request time, for the rows answered, from the live sessions where this master
 * holds the node and from the stored row where it does not.
 *
 * - An edit, a deletion or a node not in the list yet asks for a fresh read, which the next request waits for. The
 *   read also starts by itself shortly after (`CATCH_UP_MS`, so that a fleet connecting at once costs a few reads,
 *   not one per node): a console opened after nodes joined finds them listed already.
 * - A status change of a listed node is applied in place (also to the result of a read running meanwhile).
 * - Older than `maxAgeMs` (what other masters sharing the store wrote): answered as it is while a cheap check runs —
 *   how many nodes are stored and which rows were written since the last look (every write but last seen and
 *   metrics stamps `update_ts`); only those rows are presented again, and a node gone or new, or more changed rows
 *   than one chunk, means a full read.
 * - A full read goes in chunks with other work let through between them, and happens at least every
 *   `FULL_READ_MS` whatever the checks said (clocks of masters that disagree by more than `CLOCK_SLACK_MS`).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { NodeListItem, NodeListQuery } from '@crawldeck/shared';
import type { NodeStatusEvent } from '../../events.ts';
import { iso, paging } from '../../http/envelope.ts';
import type { AppContext } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { inChunks, nextTurn } from '../../store/chunks.ts';
import { listNodesChunk, nodesChangedSince, nodesLiveState } from './nodes.store.ts';
import { WRITE_CHUNK, type NodeRow } from '../execution/node-state.store.ts';
import { presentNode } from './nodes.service.ts';
import { statusOf, type Session } from '../execution/sessions.ts';
import type { TaskRuntime } from '../execution/runtime.ts';

/** How soon after a change of the stored rows the list reads them again without waiting for a request. */
export const CATCH_UP_MS = 250;
/** A full read of the stored rows at least this often. */
export const FULL_READ_MS = 60_000;
/** Rows written this long before the last check are looked at again (masters' clocks differ a little). */
export const CLOCK_SLACK_MS = 5_000;

interface ListedNode {
  item: NodeListItem;
  /** Last heard as stored (a live session may know a later time). */
  lastSeen: number;
  /** Name, description, address and host name in lower case, for the keyword filter. */
  search: string;
  /** The stored type, which orders the list: a node whose type changed needs a full read. */
  type: string;
}

/** A list row: the node with the host facts the list shows (executables and Python are in the node's detail). */
function listed(row: NodeRow): ListedNode {
  const n = presentNode(row);
  const si = n.systemInfo;
  const item: NodeListItem = {
    ...n,
    systemInfo: si && { os: si.os, arch: si.arch, num_cpu: si.num_cpu, hostname: si.hostname, sandbox: si.sandbox },
  };
  const search = [n.name, n.description, n.ip, si?.hostname ?? ''].join('\n').toLowerCase();
  return { item, lastSeen: Number(row.last_seen_ts ?? 0), search, type: row.type };
}

/** Reads every stored node in list order, a chunk at a time, presenting each chunk as it comes. */
async function readAll(db: Kysely<DB>): Promise<ListedNode[]> {
  const nodes: ListedNode[] = [];
  let after: NodeRow | undefined;
  for (;;) {
    const rows = await listNodesChunk(db, after, WRITE_CHUNK);
    for (const r of rows) nodes.push(listed(r));
    if (rows.length < WRITE_CHUNK) return nodes;
    after = rows[rows.length - 1];
    await nextTurn();
  }
}

export class NodeList {
  private nodes: ListedNode[] = [];
  private byId = new Map<string, ListedNode>();
  /** When the list was last compared with the store (a full read or a check), and last fully read. */
  private checkedAt = 0;
  private fullReadAt = 0;
  private checking: Promise<void> | undefined;
  /** Reads asked for (each change to the stored rows asks for one) and the one the list reflects. */
  private wanted = 1;
  private built = 0;
  private building: Promise<void> | undefined;
  /** Status changes heard while a read runs: applied to its result, which may predate them. */
  private heardDuringRead: NodeStatusEvent[] = [];
  private heardDuringCheck: NodeStatusEvent[] = [];
  private catchUpTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Full reads of the stored rows so far (tests check that requests and heartbeats cause none). */
  reads = 0;
  /** Checks for rows other masters wrote, and rows they found changed. */
  checks = 0;
  rowsChanged = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly live: (nodeId: string) => Session | undefined,
    private readonly log: FastifyBaseLogger,
    readonly maxAgeMs: number,
  ) {}

  /** The stored rows changed (edit, deletion): the next request reads them again. */
  markDirty(): void {
    this.wanted++;
    this.catchUpSoon();
  }

  readonly onStatus = (ev: NodeStatusEvent): void => {
    if (this.building) this.heardDuringRead.push(ev);
    if (this.checking) this.heardDuringCheck.push(ev);
    if (!this.apply(ev)) this.markDirty();
  };

  /** Whether a read of the stored rows is asked for and not done (the next request would wait for it). */
  behind(): boolean {
    return this.built < this.wanted;
  }

  /** No reads start from now on; a read running is let finish. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.catchUpTimer);
    await this.building?.catch(() => undefined);
  }

  /** Starts the read the stored rows' changes asked for, soon, unless a request does first. */
  private catchUpSoon(): void {
    if (this.catchUpTimer || this.closed) return;
    this.catchUpTimer = setTimeout(() => {
      this.catchUpTimer = undefined;
      if (this.built < this.wanted && !this.closed) this.readInBackground();
    }, CATCH_UP_MS);
    this.catchUpTimer.unref();
  }

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
    return { rows: await this.withLatest(hits), total };
  }

  private statusNow(n: ListedNode): NodeListItem['status'] {
    const s = this.live(n.item._id);
    return s ? statusOf(s) : n.item.status;
  }

  /**
   * The rows with what changes between reads as it is now: from the live session where this master holds the node,
   * from the stored row (one read of those rows) where another master or none does.
   */
  private async withLatest(hits: ListedNode[]): Promise<NodeListItem[]> {
    const elsewhere = hits.filter((n) => !this.live(n.item._id)).map((n) => n.item._id);
    const stored = new Map<string, Awaited<ReturnType<typeof nodesLiveState>>[number]>();
    await inChunks(elsewhere, WRITE_CHUNK, async (ids) => {
      for (const r of await nodesLiveState(this.db, ids)) stored.set(r.id, r);
    });
    return hits.map((n) => {
      const s = this.live(n.item._id);
      if (s) {
        return {
          ...n.item,
          status: statusOf(s),
          running: s.active.size,
          metrics: s.metrics ?? n.item.metrics,
          last_seen_ts: iso(Math.max(s.lastSeenTs, n.lastSeen)),
        };
      }
      const r = stored.get(n.item._id);
      if (!r) return n.item;
      return {
        ...n.item,
        status: r.status as NodeListItem['status'],
        running: r.running,
        metrics: JSON.parse(r.metrics || 'null') as NodeListItem['metrics'],
        last_seen_ts: iso(r.last_seen_ts),
      };
    });
  }

  /** Waits only for the reads asked for before this request (at most two), never for later ones. */
  private async current(): Promise<ListedNode[]> {
    const need = this.wanted;
    while (this.built < need) await this.rebuild();
    const now = Date.now();
    if (this.building || this.checking) return this.nodes;
    if (now - this.fullReadAt > FULL_READ_MS) this.readInBackground();
    else if (now - this.checkedAt > this.maxAgeMs) {
      // From the next turn on: the request that asked is answered first, not after the rows the check presents.
      this.checking = nextTurn()
        .then(() => (this.closed ? undefined : this.check()))
        .catch((err: unknown) => this.log.warn({ err }, 'checking the node list failed'))
        .finally(() => {
          this.checking = undefined;
        });
    }
    return this.nodes;
  }

  /** A full read that no request waits for (requests meanwhile are answered from the list as it is). */
  private readInBackground(): void {
    // From the next turn on, like a check: the read's first chunk does not hold the answer of the request that asked.
    nextTurn()
      .then(() => (this.closed ? undefined : this.rebuild()))
      .catch((err: unknown) => this.log.warn({ err }, 'reading the node list failed'));
  }

  /** Rows written since the last look, presented again in place; a node gone or new asks for a full read. */
  private async check(): Promise<void> {
    const startedAt = Date.now();
    const since = this.checkedAt - CLOCK_SLACK_MS;
    const readAt = this.fullReadAt;
    this.checks++;
    this.heardDuringCheck = [];
    // More changed rows than a chunk (a fleet that just connected): a full read, in chunks, rather than one long go.
    const { count, rows } = await nodesChangedSince(this.db, since, WRITE_CHUNK + 1);
    // A full read that finished meanwhile is newer than these rows.
    if (this.fullReadAt !== readAt || this.building) return;
    let stale = count !== this.nodes.length || rows.length > WRITE_CHUNK;
    for (const row of stale ? [] : rows) {
      const n = this.byId.get(row.id);
      if (!n || n.type !== row.type) {
        stale = true;
        continue;
      }
      Object.assign(n, listed(row));
      this.rowsChanged++;
    }
    // Status changes heard while the rows were read are newer than them.
    for (const ev of this.heardDuringCheck) this.apply(ev);
    this.heardDuringCheck = [];
    if (stale) this.readInBackground();
    else this.checkedAt = startedAt;
  }

  /** One read at a time. */
  private rebuild(): Promise<void> {
    this.building ??= (async () => {
      const generation = this.wanted;
      const startedAt = Date.now();
      this.heardDuringRead = [];
      this.reads++;
      try {
        const nodes = await readAll(this.db);
        this.nodes = nodes;
        this.byId = new Map(nodes.map((n) => [n.item._id, n]));
        this.checkedAt = startedAt;
        this.fullReadAt = startedAt;
        this.built = Math.max(this.built, generation);
        for (const ev of this.heardDuringRead) this.apply(ev);
        // Changes heard while reading (more nodes joining) are read next; after a failed read, requests ask again.
        if (this.built < this.wanted) this.catchUpSoon();
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
      return created.close();
    });
    lists.set(ctx, created);
    list = created;
  }
  return list;
}

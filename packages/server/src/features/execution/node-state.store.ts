/**
 * What the master records of the nodes it hears: registration, status transitions, last-seen times, the per-minute
 * metrics history and what nodes report about deploys and the tasks they ship data for. Writes are shaped for large
 * fleets: status only on change, last-seen and metrics in batches, retention in bounded chunks over the `ts` index.
 */
import { newId, type NodeType, type SystemInfo, type NodeStatus } from '@crawldeck/shared';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { inChunks } from '../../store/chunks.ts';

export type NodeRow = Selectable<DB['nodes']>;
/** One node's row. */
export function getNode(db: Kysely<DB>, id: string): Promise<NodeRow | undefined> {
  return db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirst();
}

export type MetricsRow = DB['node_metrics'];

/**
 * Rows per DELETE of old metrics: the first statement's, and the bounds of the next ones, which are sized by the time
 * the last one took (heartbeats.ts). A store holding days of history beyond the window deletes them at its first
 * flushes, where 1 000 rows of scattered pages took 100–1 400 ms on a loaded machine.
 */
export const RETENTION_ROWS = { first: 1000, min: 50, max: 5000 };
/**
 * Rows per statement of the batched writes and of the node list's read: on SQLite a statement holds the master's
 * thread while it runs, so each is kept to a few milliseconds and other work runs between them.
 */
export const WRITE_CHUNK = 500;

/** Node ids whose stored status is not offline (after a master restart they get one offline window to return). */
export async function nodesNotOffline(db: Kysely<DB>): Promise<string[]> {
  const rows = await db.selectFrom('nodes').select('id').where('status', '!=', 'offline').execute();
  return rows.map((r) => r.id);
}

export interface Registration {
  nodeId: string;
  name: string;
  nodeType: NodeType;
  maxRunners: number;
  systemInfo: SystemInfo;
  ip: string;
}

/**
 * The name a joining node gets: the one it asks for, or, when another node has it, the first free `name-2`,
 * `name-3`… Names identify nodes to people and to the CLI, so no two nodes share one.
 */
export async function freeNodeName(db: Kysely<DB>, wanted: string): Promise<string> {
  const escaped = wanted.replace(/[\\%_]/g, (c) => '\\' + c);
  const rows = await db
    .selectFrom('nodes')
    .select('name')
    .where((eb) => eb.or([eb('name', '=', wanted), eb('name', 'like', sql<string>`${escaped + '-%'} escape '\\'`)]))
    .execute();
  const taken = new Set(rows.map((r) => r.name));
  if (!taken.has(wanted)) return wanted;
  let n = 2;
  while (taken.has(`${wanted}-${n}`)) n++;
  return `${wanted}-${n}`;
}

/** Held while a joining node takes its name on PostgreSQL ("crawldeck:node-names"), so that two masters never give one name twice. */
const NODE_NAMES_LOCK = 0x6e6f_6465_6e61n;

/**
 * A node (re)registers: created on first contact (under a name no other node has), otherwise its host facts
 * refreshed and offline cleared; a known node keeps the name it has. On PostgreSQL several masters register nodes
 * at once: the name is chosen and stored under one transaction-level lock, so no two of them pick the same free name.
 */
export async function upsertRegisteredNode(
  db: Kysely<DB>,
  r: Registration,
  now: number,
  engine: 'sqlite' | 'postgres' = 'sqlite',
): Promise<NodeRow> {
  const created = await db.transaction().execute(async (trx) => {
    if (engine === 'postgres') await sql`SELECT pg_advisory_xact_lock(${NODE_NAMES_LOCK})`.execute(trx);
    if (await getNode(trx, r.nodeId)) return false;
    await trx
      .insertInto('nodes')
      .values({
        id: r.nodeId,
        name: await freeNodeName(trx, r.name),
        description: '',
        type: r.nodeType,
        status: 'online',
        enabled: 1,
        max_runners: r.maxRunners,
        running: 0,
        ip: r.ip,
        system_info: JSON.stringify(r.systemInfo),
        metrics: 'null',
        last_seen_ts: now,
        create_ts: now,
        update_ts: now,
      })
      .execute();
    return true;
  });
  if (!created)
    await db
      .updateTable('nodes')
      .set({
        type: r.nodeType,
        ip: r.ip,
        system_info: JSON.stringify(r.systemInfo),
        last_seen_ts: now,
        update_ts: now,
        offline_ts: null,
      })
      .where('id', '=', r.nodeId)
      .execute();
  return (await getNode(db, r.nodeId))!;
}

export async function saveNodeStatus(
  db: Kysely<DB>,
  nodeId: string,
  status: NodeStatus,
  running: number,
): Promise<void> {
  await db.updateTable('nodes').set({ status, running, update_ts: Date.now() }).where('id', '=', nodeId).execute();
}

/**
 * Records the offline transition once: true only for the caller (of all masters) that set it. With `heardBefore`,
 * only while no master has stored a heartbeat of the node since then (one that took the node over meanwhile keeps
 * it online).
 */
export async function claimOfflineTransition(db: Kysely<DB>, nodeId: string, heardBefore?: number): Promise<boolean> {
  let q = db
    .updateTable('nodes')
    .set({ offline_ts: Date.now() })
    .where('id', '=', nodeId)
    .where('offline_ts', 'is', null);
  if (heardBefore !== undefined) q = q.where('last_seen_ts', '<', heardBefore);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Nodes not recorded offline that no master has heard since `heardBefore`: those of a master that is gone, which
 * every live master looks for. Few rows or none; the whole table is small (one row a machine).
 */
export async function silentNodes(db: Kysely<DB>, heardBefore: number): Promise<string[]> {
  const rows = await db
    .selectFrom('nodes')
    .select('id')
    .where('offline_ts', 'is', null)
    .where('last_seen_ts', '<', heardBefore)
    .execute();
  return rows.map((r) => r.id);
}

/** When each of these nodes was last heard by any master. */
export async function lastSeen(db: Kysely<DB>, ids: string[]): Promise<Map<string, number | null>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('nodes').select(['id', 'last_seen_ts']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.last_seen_ts == null ? null : Number(r.last_seen_ts)]));
}

/** The last-seen time of every node heard since the last flush: one statement per chunk of nodes. */
export async function touchLastSeen(db: Kysely<DB>, ids: string[], ts: number): Promise<void> {
  await inChunks(ids, WRITE_CHUNK, async (chunk) => {
    await db.updateTable('nodes').set({ last_seen_ts: ts }).where('id', 'in', chunk).execute();
  });
}

/** The latest metrics and running count of each node: one UPDATE from a VALUES list per chunk of nodes. */
export async function saveLatestMetrics(
  db: Kysely<DB>,
  latest: { nodeId: string; metrics: string; running: number }[],
): Promise<void> {
  await inChunks(latest, WRITE_CHUNK, async (chunk) => {
    const values = sql.join(chunk.map((l) => sql`(${l.nodeId}, ${l.metrics}, CAST(${l.running} AS INTEGER))`));
    await sql`WITH v(id, metrics, running) AS (VALUES ${values}) UPDATE nodes SET metrics = v.metrics, running = v.running FROM v WHERE nodes.id = v.id`.execute(
      db,
    );
  });
}

/** Stores per-minute metrics rows; a minute stored already (another master, a repeat) keeps its row. */
export async function insertMetrics(db: Kysely<DB>, rows: MetricsRow[]): Promise<void> {
  await inChunks(rows, WRITE_CHUNK, async (chunk) => {
    await db
      .insertInto('node_metrics')
      .values(chunk)
      .onConflict((oc) => oc.doNothing())
      .execute();
  });
}

/**
 * Deletes at most `rows` of the oldest metrics older than `before`, walking the `ts` index (rows of one minute, one
 * a node, are taken in part when they do not all fit). Returns how many went: fewer than asked, nothing is left.
 */
export async function deleteMetricsChunk(db: Kysely<DB>, before: number, rows: number): Promise<number> {
  const r = await db
    .deleteFrom('node_metrics')
    .where((eb) =>
      eb(
        eb.refTuple('node_id', 'ts'),
        'in',
        eb
          .selectFrom('node_metrics')
          .select(['node_id', 'ts'])
          .where('ts', '<', before)
          .orderBy('ts')
          .limit(rows)
          .$asTuple('node_id', 'ts'),
      ),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export interface DeployReport {
  taskId: string;
  spiderId: string;
  nodeId: string;
  filesTotal: number;
  filesChanged: number;
  bytes: number;
  error: string;
  startTs: number;
  finishTs: number;
}

/** A node synced a spider's files for a task. */
export async function insertDeploy(db: Kysely<DB>, d: DeployReport): Promise<void> {
  await db
    .insertInto('deploys')
    .values({
      id: newId(d.finishTs),
      spider_id: d.spiderId,
      node_id: d.nodeId,
      task_id: d.taskId,
      files_total: d.filesTotal,
      files_changed: d.filesChanged,
      bytes: d.bytes,
      error: d.error,
      create_ts: d.startTs,
      finish_ts: d.finishTs,
    })
    .execute();
}

/** The task a node ships data for, with its owner node (checked against the node presenting itself). */
export function taskForIngest(db: Kysely<DB>, taskId: string) {
  return db.selectFrom('tasks').select(['id', 'node_id', 'spider_id']).where('id', '=', taskId).executeTakeFirst();
}

/** Ids of the admins (tasks they, or no one, own may run on the master's node when it is closed to others). */
export async function adminIds(db: Kysely<DB>): Promise<Set<string>> {
  const rows = await db.selectFrom('users').select('id').where('role', '=', 'admin').execute();
  return new Set(rows.map((r) => r.id));
}

/** Rows of `node_metrics` (tests and benchmarks count them). */
export async function countMetrics(db: Kysely<DB>): Promise<number> {
  const r = await db
    .selectFrom('node_metrics')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * The queue as dispatch reads it, and the claim under a concurrency limit. The order is the store's (priority 1
 * before 5, then the oldest, then the id), so every master sharing the store hands out the same tasks first.
 *
 * A read costs what it returns, not what waits: it is one walk of `tasks_queue_idx` (the unclaimed pending tasks in
 * the queue's order) from a cursor; dispatch keeps the tasks for any node and those made for a free node. Tasks dispatch
 * could not place now (their spider or project is at its limit, no free node takes their owner's tasks, they wait
 * for a busy node) are passed over, inside the statement where it can tell, and a pass moves on by the cursor, so a
 * task that cannot start never holds back the ones behind it.
 */
import { EMPTY_ID } from '@crawldeck/shared';
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** A pending task waiting for a node, as dispatch sees it. */
export interface QueuedTask {
  id: string;
  /** The node it was made for, or EMPTY_ID for any node. */
  node_id: string;
  owner_id: string | null;
  spider_id: string;
  priority: number;
  create_ts: number;
}

/** A place in the queue's order: reads after it see only the tasks behind it. */
export type QueueKey = Pick<QueuedTask, 'priority' | 'create_ts' | 'id'>;

/** What one read of the queue asks for. */
export interface QueueRead {
  /** The free nodes. */
  nodes: ReadonlySet<string>;
  /** Most tasks read. */
  limit: number;
  /** Only tasks behind this place in the order. */
  after?: QueueKey;
  /** Spiders at their concurrency limit: none of their tasks may start now. */
  fullSpiders?: readonly string[];
  /** Projects at their concurrency limit: no task of their spiders may start now. */
  fullProjects?: readonly string[];
  /**
   * When set, normal users' tasks are read only where a free node takes them: tasks of these users (admins) and of
   * no user go anywhere; the others only to the free nodes not in `closedNodes`, and to any node while
   * `usersWelcome` (some free node takes them).
   */
  admins?: readonly string[];
  usersWelcome?: boolean;
  closedNodes?: ReadonlySet<string>;
}

/**
 * The pending tasks not yet claimed that a free node may take (made for it, or for any node), at most `limit`, in
 * the queue's order after `after`. The statement states the partial index's condition with its values, so that
 * SQLite reads `tasks_queue_idx`. A read: claiming is `claimTask` or `claimWithinLimits`.
 */
export async function queuedTasks(db: Kysely<DB>, read: QueueRead): Promise<QueuedTask[]> {
  const now = Date.now();
  let q = db
    .selectFrom('tasks')
    .select(['id', 'node_id', 'owner_id', 'spider_id', 'priority', 'create_ts'])
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .where('assign_ts', 'is', null)
    // A retry waiting out its backoff is passed over until its time (few tasks: one per failed attempt at most).
    .where((eb) => eb.or([eb('not_before', 'is', null), eb('not_before', '<=', now)]));
  const after = read.after;
  if (after)
    q = q.where((eb) =>
      eb(eb.refTuple('priority', 'create_ts', 'id'), '>', eb.tuple(after.priority, after.create_ts, after.id)),
    );
  if (read.fullSpiders?.length) q = q.where('spider_id', 'not in', read.fullSpiders);
  const fullProjects = read.fullProjects;
  if (fullProjects?.length)
    q = q.where('spider_id', 'not in', (eb) =>
      eb.selectFrom('spiders').select('spiders.id').where('spiders.project_id', 'in', fullProjects),
    );
  if (read.admins) {
    const admins = read.admins;
    const open = [...read.nodes].filter((id) => !read.closedNodes?.has(id));
    if (read.usersWelcome) open.push(EMPTY_ID);
    q = q.where((eb) => {
      const terms: Expression<SqlBool>[] = [eb('owner_id', 'is', null)];
      if (admins.length) terms.push(eb('owner_id', 'in', admins));
      if (open.length) terms.push(eb('node_id', 'in', open));
      return eb.or(terms);
    });
  }
  const rows = await q.orderBy('priority').orderBy('create_ts').orderBy('id').limit(read.limit).execute();
  // Tasks made for a node that is not free are read and passed over here: naming the free nodes in the statement
  // would let the engines read them by node (`tasks_waiting_idx`) and sort all of them instead of walking the order.
  return rows.map((r) => ({ ...r, priority: Number(r.priority), create_ts: Number(r.create_ts) }));
}

/**
 * Whether a waiting retry's time came in (`after`, `upTo`]. The condition is `tasks_not_before_idx`'s, values
 * included, so the engines read only the retries still waiting.
 */
export async function retryFellDue(db: Kysely<DB>, after: number, upTo: number): Promise<boolean> {
  const row = await db
    .selectFrom('tasks')
    .select('id')
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .where('assign_ts', 'is', null)
    .where('not_before', 'is not', null)
    .where('not_before', '>', after)
    .where('not_before', '<=', upTo)
    .limit(1)
    .executeTakeFirst();
  return !!row;
}

/** The spiders and projects that have a concurrency limit, with the limit. */
export async function limitedSpidersAndProjects(db: Kysely<DB>) {
  const [spiders, projects] = await Promise.all([
    db.selectFrom('spiders').select(['id', 'max_running']).where('max_running', '>', 0).execute(),
    db.selectFrom('projects').select(['id', 'max_running']).where('max_running', '>', 0).execute(),
  ]);
  const max = (rows: { id: string; max_running: number }[]) => new Map(rows.map((r) => [r.id, Number(r.max_running)]));
  return { spiders: max(spiders), projects: max(projects) };
}

/** A spider's concurrency limit and its project's (0: none). */
export interface SpiderLimit {
  spiderMax: number;
  projectId: string | null;
  projectMax: number;
}

/** The concurrency limits of these spiders and of their projects; spiders that no longer exist are left out. */
export async function spiderLimits(db: Kysely<DB>, spiderIds: string[]): Promise<Map<string, SpiderLimit>> {
  const out = new Map<string, SpiderLimit>();
  if (!spiderIds.length) return out;
  const rows = await db
    .selectFrom('spiders')
    .leftJoin('projects', 'projects.id', 'spiders.project_id')
    .select(['spiders.id', 'spiders.max_running', 'spiders.project_id', 'projects.max_running as project_max'])
    .where('spiders.id', 'in', spiderIds)
    .execute();
  for (const r of rows)
    out.set(r.id, {
      spiderMax: Number(r.max_running),
      projectId: r.project_id,
      projectMax: r.project_id ? Number(r.project_max ?? 0) : 0,
    });
  return out;
}

/**
 * The tasks holding a node's slot (claimed or running). The condition is written as `tasks_slot_idx` states it,
 * values included, so that SQLite reads that partial index: it holds only the work in flight.
 */
function holding(db: Kysely<DB>) {
  return db
    .selectFrom('tasks')
    .where(sql.ref('status'), 'in', [sql.lit('pending'), sql.lit('running')])
    .where('assign_ts', 'is not', null);
}

/** How many tasks of each of these spiders hold a slot now. */
export async function slotsHeldBySpiders(db: Kysely<DB>, spiderIds: string[]): Promise<Map<string, number>> {
  if (!spiderIds.length) return new Map();
  const rows = await holding(db)
    .select(['spider_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('spider_id', 'in', spiderIds)
    .groupBy('spider_id')
    .execute();
  return new Map(rows.map((r) => [r.spider_id, Number(r.n)]));
}

/** How many tasks of each of these projects' spiders hold a slot now. */
export async function slotsHeldByProjects(db: Kysely<DB>, projectIds: string[]): Promise<Map<string, number>> {
  if (!projectIds.length) return new Map();
  const rows = await holding(db)
    .innerJoin('spiders', 'spiders.id', 'tasks.spider_id')
    .select(['spiders.project_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('spiders.project_id', 'in', projectIds)
    .groupBy('spiders.project_id')
    .execute();
  return new Map(rows.map((r) => [r.project_id!, Number(r.n)]));
}

/** What became of a claim under a limit. */
export type LimitedClaim = 'claimed' | 'lost' | 'spider_concurrency' | 'project_concurrency';

/**
 * Claims a task whose spider or project has a concurrency limit, in one transaction that first takes the spider's
 * row (and the project's) for writing: on PostgreSQL a row lock; on SQLite every transaction begins holding the
 * store's write lock. Masters sharing
 * the store therefore count and claim one after the other, and a limit of N never lets N + 1 tasks hold slots,
 * whichever master claims. The lock is always taken spider first, then project, so two claims never wait on each
 * other in a circle.
 */
export async function claimWithinLimits(
  db: Kysely<DB>,
  task: { id: string; spider_id: string },
  nodeId: string,
  limit: SpiderLimit,
): Promise<LimitedClaim> {
  return db.transaction().execute(async (trx) => {
    if (limit.spiderMax > 0) {
      // A write that changes nothing, for its lock.
      await trx
        .updateTable('spiders')
        .set((eb) => ({ max_running: eb.ref('max_running') }))
        .where('id', '=', task.spider_id)
        .execute();
      const held = (await slotsHeldBySpiders(trx, [task.spider_id])).get(task.spider_id) ?? 0;
      if (held >= limit.spiderMax) return 'spider_concurrency';
    }
    if (limit.projectId && limit.projectMax > 0) {
      await trx
        .updateTable('projects')
        .set((eb) => ({ max_running: eb.ref('max_running') }))
        .where('id', '=', limit.projectId)
        .execute();
      const held = (await slotsHeldByProjects(trx, [limit.projectId])).get(limit.projectId) ?? 0;
      if (held >= limit.projectMax) return 'project_concurrency';
    }
    const r = await trx
      .updateTable('tasks')
      .set({ node_id: nodeId, assign_ts: Date.now() })
      .where('id', '=', task.id)
      .where('status', '=', 'pending')
      .where('assign_ts', 'is', null)
      .where('node_id', 'in', [nodeId, EMPTY_ID])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0 ? 'claimed' : 'lost';
  });
}

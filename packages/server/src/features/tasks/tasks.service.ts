import {
  EMPTY_ID,
  LIST_COUNT_CAP,
  PRIORITY_DEFAULT,
  taskEndReason,
  type RunType,
  type TaskInfo,
  type TaskStatus,
} from '@crawldeck/shared';
import type { TaskEndReason } from '@crawldeck/shared';
import type { TaskWaitReason } from '@crawldeck/shared';
import type { TaskSuspicion } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { iso } from '../../http/envelope.ts';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.ts';
import { collectionRefusal, spiderOwnerMayWrite } from '../../policies/index.ts';
import { isNormalUsersTask, masterNodeClosedToUsers, masterNodeIds } from '../execution/placement.ts';
import { unsandboxedNodeIds, unsandboxedNodesClosedToUsers } from '../execution/placement.ts';
import { spiderForTask } from '../execution/spider-source.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { assertTaskChange, taskReadSources, tasksToChangeOf } from '../../policies/index.ts';
import type { Keyset, PageWindow } from '../../store/page.ts';
import { decodeCursor, encodeCursor, type KeyPart } from '../../http/cursor.ts';
import {
  deleteTaskRows,
  listTasks,
  type TaskListFilter,
  insertTasks,
  insertTasksWith,
  knownNodeIds,
  pendingTaskRow,
  setPendingPriority,
  nodeNames,
  onlineNodeIds,
  spiderExists,
  spiderNames,
  tasksByIds,
  type TaskRow,
} from './tasks.store.ts';
import { missingCommandReason } from '../spiders/command-inference.ts';
import { waitingReasons } from './waiting.ts';

export type { TaskStatusEvent, LogEvent } from '../../events.ts';

export interface CreateTasksInput {
  spiderId: string;
  runType?: RunType;
  nodeIds?: string[];
  param?: string;
  /** A command of the run's own instead of the spider's (the Scrapyd service names the Scrapy spider per job). */
  cmd?: string;
  scheduleId?: string | null;
  parentId?: string | null;
  ownerId?: string | null;
  /** Queue priority, 1 (highest) to 5 (lowest); 3 when absent. */
  priority?: number;
  /** The run's own maximum run time in seconds (0: none); absent follows the spider's. */
  timeoutSeconds?: number;
  /** The run's own count of automatic retries; absent follows its schedule's or spider's. */
  retries?: number;
  /** An automatic retry: its attempt number and the time before which it does not start. */
  attempt?: number;
  notBefore?: number;
}

/**
 * Creates pending tasks for a spider and wakes the dispatcher (push, no polling). `random` makes one task that
 * goes to the least-loaded online node; `all-nodes` one per online node; `selected-nodes` one per given node.
 * Emits `task.status` for each. Used by the tasks API, schedules and webhooks.
 */
export async function createTasks(
  ctx: AppContext,
  input: CreateTasksInput,
  /**
   * A record that must exist exactly when the tasks do (a schedule's fire): written in the transaction that
   * inserts them, so a crash leaves both or neither.
   */
  alongside?: (trx: Kysely<DB>, taskIds: string[]) => Promise<void>,
): Promise<string[]> {
  const db = ctx.store.db;
  const spider = await spiderForTask(db, input.spiderId);
  if (!spider) throw notFound('spider');
  const cmd = input.cmd ?? spider.cmd;
  const noCommand = missingCommandReason(cmd, input.param ?? '');
  if (noCommand) throw badRequest(noCommand);
  // Spiders from before collections were owned may still point at another user's collection: they do not run.
  if (!(await spiderOwnerMayWrite(db, spider.ownerId, spider.collection))) throw collectionRefusal(spider.collection);
  const runType: RunType = input.runType ?? 'random';
  let nodes: string[];
  if (runType === 'random') nodes = [EMPTY_ID];
  else if (runType === 'all-nodes') {
    const rt = ctx.execution;
    nodes = [...rt.sessions.values()].filter((s) => s.enabled).map((s) => s.nodeId);
    if (!nodes.length) nodes = await onlineNodeIds(db);
    if (!nodes.length) throw badRequest('no online node to run on');
  } else {
    const ids = [...new Set(input.nodeIds ?? [])];
    if (!ids.length) throw badRequest('selected-nodes needs node_ids');
    const known = await knownNodeIds(db, ids);
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length) throw notFound(`node ${missing[0]}`);
    nodes = ids;
  }
  nodes = await keepNormalUsersOffClosedNodes(ctx, input, nodes);
  const now = Date.now();
  const rows = nodes.map((nodeId) =>
    pendingTaskRow({
      spiderId: spider.id,
      nodeId,
      runType,
      cmd,
      param: input.param ?? '',
      scheduleId: input.scheduleId ?? null,
      parentId: input.parentId ?? null,
      ownerId: input.ownerId ?? null,
      priority: input.priority ?? PRIORITY_DEFAULT,
      timeoutSeconds: input.timeoutSeconds,
      retries: input.retries,
      attempt: input.attempt,
      notBefore: input.notBefore,
      createTs: now,
    }),
  );
  const ids = rows.map((r) => r.id);
  if (alongside) await insertTasksWith(db, rows, (trx) => alongside(trx, ids));
  else await insertTasks(db, rows);
  await dropIfSpiderWentMeanwhile(db, spider.id, rows);
  const rt = ctx.execution;
  for (const r of rows) await rt.emitStatus(r.id);
  await rt.tasksCreated();
  return ids;
}

/**
 * The tasks table does not reference spiders (their tasks are purged after them): a spider deleted between the
 * check above and the insert, whose purge may have ended already, would leave these tasks behind.
 */
async function dropIfSpiderWentMeanwhile(db: Kysely<DB>, spiderId: string, rows: { id: string }[]): Promise<void> {
  if (await spiderExists(db, spiderId)) return;
  await deleteTaskRows(
    db,
    rows.map((r) => r.id),
  );
  throw notFound('spider');
}

/**
 * Nodes closed to normal users' tasks (execution/placement.ts): the master's own node while workers exist, and nodes that
 * cannot sandbox tasks. `all-nodes` leaves them out; choosing one explicitly is refused (a task there would wait
 * forever).
 */
async function keepNormalUsersOffClosedNodes(ctx: AppContext, input: CreateTasksInput, nodes: string[]) {
  const db = ctx.store.db;
  if (nodes[0] === EMPTY_ID || !(await isNormalUsersTask(db, input.ownerId))) return nodes;
  const masters = (await masterNodeClosedToUsers(db)) ? await masterNodeIds(db, nodes) : new Set<string>();
  const bare = (await unsandboxedNodesClosedToUsers(db)) ? await unsandboxedNodeIds(db, nodes) : new Set<string>();
  if (!masters.size && !bare.size) return nodes;
  if (input.runType !== 'all-nodes') {
    if (masters.size)
      throw forbidden(
        "normal users' tasks may not run on the master node while worker nodes exist (Settings → General)",
      );
    throw forbidden("normal users' tasks may not run on a node without a sandbox (Settings → General)");
  }
  const rest = nodes.filter((id) => !masters.has(id) && !bare.has(id));
  if (!rest.length) throw badRequest('no online node to run on');
  return rest;
}

function endReasonOf(t: TaskRow): { end_reason?: TaskEndReason } {
  const r = taskEndReason(t.status, t.error, t.exit_code);
  return r ? { end_reason: r } : {};
}

/** Task as the API shows it: ISO times, durations in ms, node id of zeros when none. */
export function presentTask(
  t: TaskRow & { spider_name?: string | null; node_name?: string | null; waiting_reason?: TaskWaitReason },
): TaskInfo {
  const now = Date.now();
  const end = t.finish_ts ?? null;
  return {
    _id: t.id,
    spider_id: t.spider_id,
    spider_name: t.spider_name ?? '',
    node_id: t.node_id || EMPTY_ID,
    ...(t.node_name != null ? { node_name: t.node_name } : {}),
    schedule_id: t.schedule_id,
    parent_id: t.parent_id,
    type: t.type,
    status: t.status as TaskStatus,
    run_type: t.run_type as RunType,
    param: t.param,
    priority: t.priority,
    timeout_seconds: t.timeout_seconds,
    attempt: Number(t.attempt),
    retries: t.retries == null ? null : Number(t.retries),
    not_before: iso(t.not_before),
    cmd: t.cmd,
    error: t.error,
    ...endReasonOf(t),
    exit_code: t.exit_code,
    pid: t.pid,
    result_count: t.result_count,
    log_count: t.log_lines,
    error_log_count: t.error_lines,
    create_ts: iso(t.create_ts),
    start_ts: iso(t.start_ts),
    finish_ts: iso(t.finish_ts),
    wait_duration: t.start_ts != null ? t.start_ts - t.create_ts : end != null ? end - t.create_ts : now - t.create_ts,
    runtime_duration: t.start_ts != null ? (end ?? now) - t.start_ts : null,
    total_duration: (end ?? now) - t.create_ts,
    owner_id: t.owner_id,
    suspicious: parseSuspicion(t.suspicious),
    ...(t.status === 'pending' ? { waiting_reason: t.waiting_reason ?? null } : {}),
  };
}

/** The stored suspicion of a finished task (see features/suspicious), null when there is none. */
function parseSuspicion(stored: string | undefined): TaskSuspicion | null {
  if (!stored) return null;
  try {
    return JSON.parse(stored) as TaskSuspicion;
  } catch {
    return null;
  }
}

/**
 * Tasks as the API shows them, with their spider's and node's names (two look-ups for the whole list) and, for
 * pending ones, why they wait.
 */
export async function presentTasks(db: Kysely<DB>, rows: TaskRow[]): Promise<TaskInfo[]> {
  const [spiders, nodes, waiting] = await Promise.all([
    spiderNames(
      db,
      rows.map((r) => r.spider_id),
    ),
    nodeNames(
      db,
      rows.map((r) => r.node_id),
    ),
    waitingReasons(db, rows),
  ]);
  return rows.map((r) =>
    presentTask({
      ...r,
      spider_name: spiders.get(r.spider_id) ?? '',
      node_name: nodes.get(r.node_id) ?? null,
      waiting_reason: waiting.get(r.id),
    }),
  );
}

/** Loads tasks by id for a change: every one the caller sees must be the caller's (or the caller an administrator). */
export async function tasksToChange(db: Kysely<DB>, user: AuthUser, ids: string[]): Promise<TaskRow[]> {
  return tasksToChangeOf(db, user, await tasksByIds(db, ids));
}

/** Deletes tasks (stopping those still pending or running) and announces each deletion; returns how many. */
export async function deleteTasks(ctx: AppContext, user: AuthUser, ids: string[]): Promise<number> {
  const rows = await tasksToChange(ctx.store.db, user, ids);
  const rt = ctx.execution;
  for (const t of rows) {
    if (t.status === 'running' || t.status === 'pending') rt.drop(t.id, t.node_id);
  }
  if (!rows.length) return 0;
  await deleteTaskRows(
    ctx.store.db,
    rows.map((r) => r.id),
  );
  for (const t of rows)
    ctx.events.emit('task.status', {
      taskId: t.id,
      status: 'deleted',
      spiderId: t.spider_id,
      nodeId: t.node_id,
      scheduleId: t.schedule_id,
      parentId: t.parent_id,
      error: '',
    });
  return rows.length;
}

/** Runs a task again as a new task of the same spider, parameters and node choice. */
export async function restartTask(ctx: AppContext, user: AuthUser, t: TaskRow): Promise<string[]> {
  assertTaskChange(user, t);
  return createTasks(ctx, {
    spiderId: t.spider_id,
    runType: t.run_type === 'random' ? 'random' : 'selected-nodes',
    nodeIds: t.run_type === 'random' ? [] : [t.node_id],
    param: t.param,
    scheduleId: t.schedule_id,
    ownerId: user.id,
    priority: t.priority,
    timeoutSeconds: t.timeout_seconds ?? undefined,
    retries: t.retries ?? undefined,
  });
}

/**
 * Moves a waiting task to another place in the queue (the task policy decides who may). Once a node has it, its
 * priority no longer changes anything: 409.
 */
export async function changePriority(ctx: AppContext, user: AuthUser, t: TaskRow, priority: number): Promise<void> {
  assertTaskChange(user, t);
  if (!(await setPendingPriority(ctx.store.db, t.id, priority)))
    throw conflict('only a task that still waits for a node can change its priority');
  await ctx.execution.emitStatus(t.id);
}

/** A page of a list by number (LIMIT / OFFSET) or by the `cursor` an earlier answer gave. */
export interface ListRequest extends PageWindow {
  cursor?: string;
}

/** A page of a keyset list as the API answers it: total up to the count cap, cursors as opaque text. */
export interface KeysetAnswer<T> {
  list: T[];
  total: number;
  total_capped: boolean;
  next: string | null;
  prev: string | null;
  last: string | null;
}

/**
 * Where a list page starts: the request's cursor, or its page number while that stays within the rows a list
 * counts (beyond them a page number would mean walking every row before it: those pages are reached by cursor).
 */
export function listStart(req: ListRequest, key: KeyPart[]): { cursor: Keyset } | PageWindow {
  if (req.cursor) return { cursor: decodeCursor(req.cursor, key) };
  if (req.offset >= LIST_COUNT_CAP)
    throw badRequest(
      `page_num reaches past the first ${LIST_COUNT_CAP} rows of this list: go on with the \`next\` cursor of a page, or \`last\` for the last page`,
    );
  return { limit: req.limit, offset: req.offset };
}

/** The cursors and total of a keyset page, as the answer carries them. */
export function keysetAnswer<T>(
  list: T[],
  page: { next: Keyset | null; prev: Keyset | null; total: number; capped: boolean },
): KeysetAnswer<T> {
  const text = (k: Keyset | null) => (k ? encodeCursor(k) : null);
  return {
    list,
    total: page.total,
    total_capped: page.capped,
    next: text(page.next),
    prev: text(page.prev),
    last: page.total ? encodeCursor({ dir: 'last' }) : null,
  };
}

/** One page of the tasks `user` may read (task policy) among those matching `f`, newest first. */
export async function readableTasks(
  ctx: AppContext,
  user: AuthUser,
  f: TaskListFilter,
  req: ListRequest,
): Promise<KeysetAnswer<TaskInfo>> {
  const at = listStart(req, ['int', 'id']);
  const page = await listTasks(ctx.store, taskReadSources(user), f, at, req.limit, LIST_COUNT_CAP);
  return keysetAnswer(await presentTasks(ctx.store.db, page.rows), page);
}

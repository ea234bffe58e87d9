/**
 * A task's life as stored: the only code that writes a task's status or its node claim. Each transition is one
 * conditional statement (it only applies from the states it names, so two masters sharing a store cannot both make
 * it) and returns the event it caused, which the caller emits; no event means nothing changed.
 */
import { EMPTY_ID, type FinalStatus } from '@crawldeck/shared';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { TaskStatusEvent } from '../../events.ts';
import type { DB } from '../../store/schema.ts';

type TaskRow = Selectable<DB['tasks']>;
const EVENT_COLUMNS = ['id', 'status', 'spider_id', 'node_id', 'schedule_id', 'parent_id', 'error'] as const;
type EventRow = Pick<TaskRow, (typeof EVENT_COLUMNS)[number]>;

function toEvent(t: EventRow, repeat = false): TaskStatusEvent {
  return {
    taskId: t.id,
    status: t.status,
    spiderId: t.spider_id,
    nodeId: t.node_id,
    scheduleId: t.schedule_id,
    parentId: t.parent_id,
    error: t.error,
    ...(repeat ? { repeat } : {}),
  };
}

/** The event a task's current state stands for (a newly created task, or a view that must refresh). */
export async function taskStatusEvent(
  db: Kysely<DB>,
  taskId: string,
  repeat = false,
): Promise<TaskStatusEvent | undefined> {
  const t = await db.selectFrom('tasks').select(EVENT_COLUMNS).where('id', '=', taskId).executeTakeFirst();
  return t && toEvent(t, repeat);
}

/**
 * Claims a pending task for a node: one conditional UPDATE, the single source of truth when several masters share
 * the store (the loser of a race updates no row). No event: the task stays pending until the node starts it.
 */
export async function claimTask(db: Kysely<DB>, taskId: string, nodeId: string, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('tasks')
    .set({ node_id: nodeId, assign_ts: now })
    .where('id', '=', taskId)
    .where('status', '=', 'pending')
    .where('assign_ts', 'is', null)
    .where('node_id', 'in', [nodeId, EMPTY_ID])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** A claimed task never reached its node: back to the queue (a task for any node may go elsewhere now). */
export async function unassignTask(db: Kysely<DB>, taskId: string): Promise<void> {
  const t = await db.selectFrom('tasks').select('run_type').where('id', '=', taskId).executeTakeFirst();
  if (!t) return;
  await db
    .updateTable('tasks')
    .set({ assign_ts: null, ...(t.run_type === 'random' ? { node_id: EMPTY_ID } : {}) })
    .where('id', '=', taskId)
    .where('status', '=', 'pending')
    .execute();
}

/** The node started the process: pending → running. `current` is the stored status when it was not pending. */
export async function startTask(
  db: Kysely<DB>,
  taskId: string,
  run: { startTs: number; pid: number; cmd: string },
): Promise<{ event?: TaskStatusEvent; current?: string }> {
  const row = await db
    .updateTable('tasks')
    .set({ status: 'running', start_ts: run.startTs, pid: run.pid, cmd: run.cmd })
    .where('id', '=', taskId)
    .where('status', '=', 'pending')
    .returning(EVENT_COLUMNS)
    .executeTakeFirst();
  if (row) return { event: toEvent(row) };
  const t = await db.selectFrom('tasks').select('status').where('id', '=', taskId).executeTakeFirst();
  return { current: t?.status };
}

/** A reconnecting node still runs a task the store had ended or not started: the store follows the node. */
export async function resumeTask(
  db: Kysely<DB>,
  taskId: string,
  pid: number | null,
): Promise<TaskStatusEvent | undefined> {
  const row = await db
    .updateTable('tasks')
    // A task the node runs holds one of its slots (counted by the concurrency limits), claimed or not before.
    .set({ status: 'running', error: '', finish_ts: null, pid, assign_ts: sql`coalesce(assign_ts, ${Date.now()})` })
    .where('id', '=', taskId)
    .where('status', 'not in', ['running', 'cancelled'])
    .returning(EVENT_COLUMNS)
    .executeTakeFirst();
  return row && toEvent(row);
}

export interface FinalReport {
  status: FinalStatus;
  exitCode: number | null;
  error: string;
  finishTs: number;
}

/**
 * The node's final word on a task. A user's cancel wins over how the process ended; otherwise the node's word is
 * final (also over abnormal). A repeated report or a confirmed cancel returns a `repeat` event.
 *
 * The node sends its word once every line and item of the task is shipped and stored, so the task's finish time is
 * when that word arrives (or the process end by the node's clock, if later): a task whose process ended long before
 * its output was stored does not show a short duration. A repeated word, or one confirming a status the task has
 * already (a cancel, an error), keeps the finish time it has.
 */
export async function finishTask(
  db: Kysely<DB>,
  taskId: string,
  report: FinalReport,
): Promise<{ event: TaskStatusEvent; logLines: number; items: number } | undefined> {
  const t = await db
    .selectFrom('tasks')
    .select(['status', 'log_lines', 'item_offset'])
    .where('id', '=', taskId)
    .executeTakeFirst();
  if (!t) return undefined;
  // A task the master failed while it ran (its results were refused) keeps that status and reason; a cancelled one
  // keeps the reason it has (its items given up because its results database failed), not the node's "cancelled".
  const kept = t.status === 'cancelled' || t.status === 'error';
  const status = kept ? t.status : report.status;
  const error = kept ? undefined : report.error;
  const finishTs = t.status === status ? {} : { finish_ts: Math.max(report.finishTs, Date.now()) };
  const row = await db
    .updateTable('tasks')
    .set({ status, exit_code: report.exitCode, ...(error === undefined ? {} : { error }), ...finishTs })
    .where('id', '=', taskId)
    .returning(EVENT_COLUMNS)
    .executeTakeFirst();
  if (!row) return undefined;
  return { event: toEvent(row, t.status === status), logLines: t.log_lines, items: t.item_offset };
}

/** The task's node is gone or lost it: running (or claimed) → abnormal, unless something else ended it first. */
export async function abandonTask(
  db: Kysely<DB>,
  taskId: string,
  from: 'running' | 'pending',
  error: string,
): Promise<TaskStatusEvent | undefined> {
  const row = await db
    .updateTable('tasks')
    .set({ status: 'abnormal', error, finish_ts: Date.now() })
    .where('id', '=', taskId)
    .where('status', '=', from)
    .returning(EVENT_COLUMNS)
    .executeTakeFirst();
  return row && toEvent(row);
}

/** The task cannot run at all (its spider is gone): claimed → error. */
export function failTask(db: Kysely<DB>, taskId: string, error: string): Promise<TaskStatusEvent | undefined> {
  return endInError(db, taskId, error, 'pending');
}

/** The master will take no more of a running task (its results database refuses them): running → error. */
export function failRunningTask(db: Kysely<DB>, taskId: string, error: string): Promise<TaskStatusEvent | undefined> {
  return endInError(db, taskId, error, 'running');
}

async function endInError(
  db: Kysely<DB>,
  taskId: string,
  error: string,
  from: 'pending' | 'running',
): Promise<TaskStatusEvent | undefined> {
  const row = await db
    .updateTable('tasks')
    .set({ status: 'error', error, finish_ts: Date.now() })
    .where('id', '=', taskId)
    .where('status', '=', from)
    .returning(EVENT_COLUMNS)
    .executeTakeFirst();
  return row && toEvent(row);
}

/** A user cancels: pending or running → cancelled. Returns where the task was, so its node can be told. */
export async function cancelTask(
  db: Kysely<DB>,
  taskId: string,
): Promise<{ event: TaskStatusEvent; wasOnNode: boolean } | undefined> {
  const t = await db.selectFrom('tasks').select(['status', 'assign_ts']).where('id', '=', taskId).executeTakeFirst();
  if (!t || (t.status !== 'pending' && t.status !== 'running')) return undefined;
  const row = await db
    .updateTable('tasks')
    .set({ status: 'cancelled', finish_ts: Date.now() })
    .where('id', '=', taskId)
    .where('status', '=', t.status)
    .returning(EVENT_COLUMNS)
    .executeTakeFirst();
  if (!row) return undefined;
  return { event: toEvent(row), wasOnNode: t.status === 'running' || t.assign_ts != null };
}

/** Tasks a node holds as the store sees them: running, or claimed for it and not started. */
export function tasksOnNode(db: Kysely<DB>, nodeId: string): Promise<{ id: string; status: string }[]> {
  return tasksOnNodeQuery(db, nodeId).execute();
}

/**
 * The statement of `tasksOnNode`. Both statuses are named in one IN so that the (node_id, status) index reads only
 * these rows: a node that ran millions of tasks must not make this read (at every reconnect) walk its history. The
 * index holds only pending and running tasks; SQLite reads such an index only for a statement that states its
 * condition as written, values included (not as parameters), hence the literal IN.
 */
export function tasksOnNodeQuery(db: Kysely<DB>, nodeId: string) {
  return db
    .selectFrom('tasks')
    .select(['id', 'status'])
    .where('node_id', '=', nodeId)
    .where(sql.ref('status'), 'in', [sql.lit('pending'), sql.lit('running')])
    .where((eb) => eb.or([eb('status', '=', 'running'), eb('assign_ts', 'is not', null)]));
}

/** Which of these tasks exist, with their node and status (a reconnecting node's report). */
export async function tasksById(
  db: Kysely<DB>,
  ids: string[],
): Promise<Map<string, { status: string; node_id: string }>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('tasks').select(['id', 'status', 'node_id']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** Nodes with running tasks (after a restart they must come back, or those tasks end abnormal). */
export async function nodesWithRunningTasks(db: Kysely<DB>): Promise<string[]> {
  const rows = await db.selectFrom('tasks').select('node_id').distinct().where('status', '=', 'running').execute();
  return rows.map((r) => r.node_id);
}

/** Everything a node needs to run a claimed task. */
export function taskForAssignment(db: Kysely<DB>, taskId: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirst();
}

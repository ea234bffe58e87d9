import { EMPTY_ID, newId, type RunType, type TaskInfo, type TaskStatus } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { iso } from '../../http/envelope.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import { collectionRefusal, spiderOwnerMayWrite } from '../../policies/index.ts';
import { isNormalUsersTask, masterNodeClosedToUsers, masterNodeIds } from './master-node.ts';
import { getRuntime } from './runtime.ts';
import { spiderForTask } from './spider-source.ts';
import { missingCommandReason } from '../spiders/command-inference.ts';
import type { TaskRow } from './tasks.store.ts';

export type { TaskStatusEvent, LogEvent } from './runtime.ts';

export interface CreateTasksInput {
  spiderId: string;
  runType?: RunType;
  nodeIds?: string[];
  param?: string;
  scheduleId?: string | null;
  parentId?: string | null;
  ownerId?: string | null;
}

/**
 * Creates pending tasks for a spider and wakes the dispatcher (push, no polling). `random` makes one task that
 * goes to the least-loaded online node; `all-nodes` one per online node; `selected-nodes` one per given node.
 * Emits `task.status` for each. Used by the tasks API, schedules and webhooks.
 */
export async function createTasks(ctx: AppContext, input: CreateTasksInput): Promise<string[]> {
  const db = ctx.store.db;
  const spider = await spiderForTask(db, input.spiderId);
  if (!spider) throw notFound('spider');
  const noCommand = missingCommandReason(spider.cmd, input.param ?? '');
  if (noCommand) throw badRequest(noCommand);
  // Spiders from before collections were owned may still point at another user's collection: they do not run.
  if (!(await spiderOwnerMayWrite(db, spider.ownerId, spider.collection))) throw collectionRefusal(spider.collection);
  const runType: RunType = input.runType ?? 'random';
  let nodes: string[];
  if (runType === 'random') nodes = [EMPTY_ID];
  else if (runType === 'all-nodes') {
    const rt = getRuntime(ctx);
    nodes = [...rt.sessions.values()].filter((s) => s.enabled).map((s) => s.nodeId);
    if (!nodes.length) {
      const rows = await db.selectFrom('nodes').select('id').where('status', '!=', 'offline').where('enabled', '=', 1).execute();
      nodes = rows.map((r) => r.id);
    }
    if (!nodes.length) throw badRequest('no online node to run on');
  } else {
    const ids = [...new Set(input.nodeIds ?? [])];
    if (!ids.length) throw badRequest('selected-nodes needs node_ids');
    const rows = await db.selectFrom('nodes').select('id').where('id', 'in', ids).execute();
    const known = new Set(rows.map((r) => r.id));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length) throw notFound(`node ${missing[0]}`);
    nodes = ids;
  }
  nodes = await keepNormalUsersOffMaster(ctx, input, nodes);
  const now = Date.now();
  const rows = nodes.map((nodeId) => ({
    id: newId(now),
    spider_id: spider.id,
    node_id: nodeId,
    schedule_id: input.scheduleId ?? null,
    parent_id: input.parentId ?? null,
    type: 'spider',
    status: 'pending',
    run_type: runType,
    param: input.param ?? '',
    cmd: spider.cmd,
    error: '',
    exit_code: null,
    pid: null,
    result_count: 0,
    log_lines: 0,
    error_lines: 0,
    item_offset: 0,
    assign_ts: null,
    create_ts: now,
    start_ts: null,
    finish_ts: null,
    owner_id: input.ownerId ?? null,
  }));
  await db.insertInto('tasks').values(rows).execute();
  const rt = getRuntime(ctx);
  for (const r of rows) await rt.emitStatus(r.id);
  await rt.tasksCreated();
  return rows.map((r) => r.id);
}

/**
 * While the master's own node is closed to normal users' tasks (master-node.ts): `all-nodes` leaves it out,
 * choosing it explicitly is refused (a task there would wait forever).
 */
async function keepNormalUsersOffMaster(ctx: AppContext, input: CreateTasksInput, nodes: string[]): Promise<string[]> {
  const db = ctx.store.db;
  if (nodes[0] === EMPTY_ID || !(await isNormalUsersTask(db, input.ownerId)) || !(await masterNodeClosedToUsers(db))) return nodes;
  const masters = await masterNodeIds(db, nodes);
  if (!masters.size) return nodes;
  if (input.runType !== 'all-nodes') throw forbidden("normal users' tasks may not run on the master node while worker nodes exist (Settings → General)");
  const rest = nodes.filter((id) => !masters.has(id));
  if (!rest.length) throw badRequest('no online node to run on');
  return rest;
}

/** Task as the API shows it: ISO times, durations in ms, node id of zeros when none. */
export function presentTask(t: TaskRow & { spider_name?: string | null; node_name?: string | null }): TaskInfo {
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
    cmd: t.cmd,
    error: t.error,
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
  };
}

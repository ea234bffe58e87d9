/**
 * The task changes of one interval as every console hears them, with why each pending one waits. Worked out once
 * per interval for all consoles (each console then keeps the tasks its user may read).
 *
 * The reason of a pending task follows the fleet as well as the task: a node that comes online, fills up, is turned
 * off or goes away changes it without the task changing. When a node's status changed in the interval, the newest
 * pending tasks (a bounded number, the ones a task list shows first) whose reason differs from the one last told
 * are told again, so a console shows why a task waits without reloading. So are they when a task of a spider under
 * a concurrency limit starts or ends.
 */
import { EMPTY_ID, type TaskChange, type TaskWaitReason } from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { TasksChangedEvent } from '../../events.ts';
import type { DB } from '../../store/schema.ts';
import { newestPendingTasks, tasksByIds, type TaskRow } from './tasks.store.ts';
import { waitingReasons } from './waiting.ts';
import { spiderLimits } from '../execution/queue.store.ts';

/** How many of the newest pending tasks are looked at again when the fleet changes. */
export const FLEET_RECHECK_LIMIT = 500;

/** Per store: the reason last told of each pending task (a task leaves it once told in another status). */
const told = new WeakMap<Kysely<DB>, Map<string, TaskWaitReason>>();
const perEvent = new WeakMap<TasksChangedEvent, Promise<TaskChange[]>>();

/** The changes of `ev` with the reasons of pending tasks, and pending tasks whose reason the fleet changed. */
export function announcedChanges(db: Kysely<DB>, ev: TasksChangedEvent): Promise<TaskChange[]> {
  let out = perEvent.get(ev);
  if (!out) {
    out = build(db, ev);
    // A failed look-up is tried again by the next console rather than remembered.
    out.catch(() => perEvent.delete(ev));
    perEvent.set(ev, out);
  }
  return out;
}

async function build(db: Kysely<DB>, ev: TasksChangedEvent): Promise<TaskChange[]> {
  let last = told.get(db);
  if (!last) told.set(db, (last = new Map()));
  const changes: TaskChange[] = [];
  for (const c of ev.changes.values()) {
    const { taskId, status, spiderId, nodeId, scheduleId, parentId, error } = c;
    changes.push({ taskId, status, spiderId, nodeId, scheduleId, parentId, error });
  }
  const pendingIds = changes.filter((c) => c.status === 'pending').map((c) => c.taskId);
  const recheck = ev.fleetChanged || (await limitedSlotMoved(db, changes));
  const [changedRows, fleetRows] = await Promise.all([
    tasksByIds(db, pendingIds),
    recheck ? newestPendingTasks(db, FLEET_RECHECK_LIMIT) : Promise.resolve([]),
  ]);
  const extra = fleetRows.filter((r) => !ev.changes.has(r.id));
  const reasons = await waitingReasons(db, [...changedRows, ...extra]);
  if (recheck) {
    // Only tasks still looked at are remembered: those whose later changes went by unheard are forgotten here.
    for (const id of last.keys()) if (!reasons.has(id)) last.delete(id);
  }

  for (const c of changes) {
    const reason = c.status === 'pending' ? reasons.get(c.taskId) : undefined;
    if (reason) {
      c.waiting_reason = reason;
      last.set(c.taskId, reason);
    } else last.delete(c.taskId);
  }
  for (const r of extra) {
    const reason = reasons.get(r.id);
    if (!reason || last.get(r.id) === reason) continue;
    last.set(r.id, reason);
    changes.push({ ...changeOf(r), waiting_reason: reason });
  }
  return changes;
}

/**
 * Whether a task of a spider under a concurrency limit (its own or its project's) started or ended: the tasks of
 * that spider or project that wait may now wait for another reason, as when the fleet changes.
 */
async function limitedSlotMoved(db: Kysely<DB>, changes: TaskChange[]): Promise<boolean> {
  const spiders = [...new Set(changes.filter((c) => c.status !== 'pending').map((c) => c.spiderId))];
  const limits = await spiderLimits(db, spiders);
  return [...limits.values()].some((l) => l.spiderMax > 0 || l.projectMax > 0);
}

/** A pending task, as a change of the feed. */
function changeOf(r: TaskRow): TaskChange {
  return {
    taskId: r.id,
    status: r.status,
    spiderId: r.spider_id,
    nodeId: r.node_id || EMPTY_ID,
    scheduleId: r.schedule_id,
    parentId: r.parent_id,
    error: r.error,
  };
}

/**
 * Why a pending task still waits, told from the fleet as the store has it (node statuses are written by whichever
 * master holds each node, so every master tells the same). The same rules as dispatch: a task made for one node
 * waits for that node, a task for any node for any of them; a normal user's task never goes to the master's own
 * node while workers exist (unless allowed) nor to a node without a sandbox (unless allowed). A task that a node
 * could take but whose spider or project already has as many tasks claimed or running as its limit allows waits
 * for that limit. An automatic retry waits out its backoff first.
 */
import { EMPTY_ID, type TaskWaitReason } from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { masterNodeClosedToUsers, unsandboxedNodesClosedToUsers } from '../execution/placement.ts';
import { fleetForWaiting, userRoles } from '../execution/placement.store.ts';
import { slotsHeldByProjects, slotsHeldBySpiders, spiderLimits } from '../execution/queue.store.ts';

type FleetNode = Awaited<ReturnType<typeof fleetForWaiting>>[number];

/** What telling a task's reason needs of it. */
export interface WaitingTask {
  id: string;
  status: string;
  node_id: string;
  owner_id: string | null;
  spider_id: string;
  assign_ts: number | null;
  /** A retry waiting out its backoff does not start before this time. */
  not_before?: number | null;
}

/** The reason of each pending task among `tasks`; tasks in any other status have none. */
export async function waitingReasons(db: Kysely<DB>, tasks: WaitingTask[]): Promise<Map<string, TaskWaitReason>> {
  const out = new Map<string, TaskWaitReason>();
  const pending = tasks.filter((t) => t.status === 'pending');
  if (!pending.length) return out;
  const now = Date.now();
  const backingOff = (t: WaitingTask) => t.assign_ts == null && t.not_before != null && Number(t.not_before) > now;
  const waitingForNode = pending.filter((t) => t.assign_ts == null && !backingOff(t));
  for (const t of pending) if (t.assign_ts != null) out.set(t.id, 'preparing');
  for (const t of pending) if (backingOff(t)) out.set(t.id, 'retry_backoff');
  if (!waitingForNode.length) return out;

  const owners = [...new Set(waitingForNode.map((t) => t.owner_id).filter((id): id is string => !!id))];
  const forAnyNode = waitingForNode.some((t) => t.node_id === EMPTY_ID);
  const [fleet, roles, masterClosed, bareClosed, heldBack] = await Promise.all([
    fleetForWaiting(db, forAnyNode ? undefined : [...new Set(waitingForNode.map((t) => t.node_id))]),
    userRoles(db, owners),
    masterNodeClosedToUsers(db),
    unsandboxedNodesClosedToUsers(db),
    heldBackByLimits(db, waitingForNode),
  ]);
  // A deleted owner counts as a normal user, as dispatch and task creation count it.
  const isNormal = (ownerId: string | null) => !!ownerId && roles.get(ownerId) !== 'admin';
  const closedTo = (n: FleetNode) => (n.isMaster && masterClosed) || (!n.sandboxed && bareClosed);
  for (const t of waitingForNode) {
    const candidates = t.node_id === EMPTY_ID ? fleet : fleet.filter((n) => n.id === t.node_id);
    const normal = isNormal(t.owner_id);
    const reason = reasonAmong(
      candidates.filter((n) => !normal || !closedTo(n)),
      candidates.filter((n) => normal && closedTo(n)),
    );
    const limit = heldBack.get(t.spider_id);
    out.set(t.id, limit && (reason === 'queued' || reason === 'slots_busy') ? limit : reason);
  }
  return out;
}

/** The spiders among these tasks' whose own limit, or whose project's, is reached, with the limit that holds. */
async function heldBackByLimits(
  db: Kysely<DB>,
  tasks: WaitingTask[],
): Promise<Map<string, 'spider_concurrency' | 'project_concurrency'>> {
  const out = new Map<string, 'spider_concurrency' | 'project_concurrency'>();
  const limits = await spiderLimits(db, [...new Set(tasks.map((t) => t.spider_id))]);
  const limited = [...limits].filter(([, l]) => l.spiderMax > 0 || l.projectMax > 0);
  if (!limited.length) return out;
  const projects = [...new Set(limited.filter(([, l]) => l.projectMax > 0).map(([, l]) => l.projectId!))];
  const [bySpider, byProject] = await Promise.all([
    slotsHeldBySpiders(
      db,
      limited.filter(([, l]) => l.spiderMax > 0).map(([id]) => id),
    ),
    slotsHeldByProjects(db, projects),
  ]);
  for (const [id, l] of limited) {
    if (l.spiderMax > 0 && (bySpider.get(id) ?? 0) >= l.spiderMax) out.set(id, 'spider_concurrency');
    else if (l.projectMax > 0 && (byProject.get(l.projectId!) ?? 0) >= l.projectMax) out.set(id, 'project_concurrency');
  }
  return out;
}

/** The reason, from the nodes that may run the task and those that would but do not take its owner's tasks. */
function reasonAmong(eligible: FleetNode[], closed: FleetNode[]): TaskWaitReason {
  const live = (n: FleetNode) => n.status !== 'offline';
  if (eligible.some((n) => n.enabled && n.status === 'online')) return 'queued';
  // A live, enabled node that is not online is one whose every slot is taken.
  if (eligible.some((n) => n.enabled && live(n))) return 'slots_busy';
  if (eligible.some(live)) return 'nodes_disabled';
  if (closed.some(live)) return 'closed_to_user';
  return 'no_node_online';
}

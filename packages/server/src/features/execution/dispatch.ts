/**
 * Push dispatch: whenever a task is created or a slot frees up, the waiting tasks of the highest priority, oldest
 * first, go to nodes this master holds. The node is chosen in memory (a task for any node goes to the least loaded
 * one), then claimed in the store with one conditional update per task: the claim stays the single source of truth,
 * so masters sharing a store never hand out a task twice; a claim lost to another master costs one statement and
 * moves on.
 */
import { EMPTY_ID } from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { DB } from '../../store/schema.ts';
import { masterNodeClosedToUsers, unsandboxedNodesClosedToUsers } from './placement.ts';
import { claimTask, queuedTasks, type QueuedTask } from './task-state.store.ts';
import { adminIds } from './node-state.store.ts';
import { takesWork } from './free-sessions.ts';
import type { Session, SessionTable } from './sessions.ts';

/** Most tasks read per round; a pass reads again while it still places tasks. */
const ROUND = 500;

/** What dispatch asks of the runtime that holds the sessions. */
export interface DispatchHost {
  readonly db: Kysely<DB>;
  readonly log: FastifyBaseLogger;
  readonly sessions: SessionTable;
  /** Sends a claimed task to its node (and undoes the claim when that fails). */
  assign(s: Session, taskId: string): Promise<void>;
  /** The node's status may have changed (it is stored only if it did). */
  statusMayHaveChanged(nodeId: string): Promise<void>;
}

/**
 * Counters of the work dispatch did: tests and benchmarks check claims per task, not timings. The sessions it
 * looked at and the steps spent keeping them in order are read from the table's free sessions (`work`).
 */
export interface DispatchCounts {
  passes: number;
  rounds: number;
  claims: number;
  claimsLost: number;
}

export class Dispatcher {
  private running = false;
  private again = false;
  private closed = false;
  /**
   * The last round read as many tasks as there were free slots and could not place some of them (no free node may
   * take them: a normal user's task and only the master's node, or nodes without a sandbox, free): the next round
   * reads a full round, so tasks behind them that a free node may take are not held back.
   */
  private lookPast = false;
  readonly counts: DispatchCounts = { passes: 0, rounds: 0, claims: 0, claimsLost: 0 };

  constructor(private readonly host: DispatchHost) {}

  close(): void {
    this.closed = true;
  }

  /** Runs a pass now, or once more after the one under way. */
  schedule(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void (async () => {
      try {
        do {
          this.again = false;
          this.counts.passes++;
          while (!this.closed && (await this.round()));
        } while (this.again && !this.closed);
      } catch (err) {
        this.host.log.error({ err }, 'dispatch failed');
      } finally {
        this.running = false;
      }
    })();
  }

  /**
   * Places one round of waiting tasks; true when another round may place more: it placed some, and tasks may wait
   * that this round did not see or could not place. A round that placed every task it read, and read fewer than it
   * asked for, leaves nothing: a task created since wakes dispatch itself. The free sessions are kept in order by
   * the session table, so a round costs its store reads and its placements, whatever the size of the fleet.
   */
  private async round(): Promise<boolean> {
    const { db, sessions } = this.host;
    const free = sessions.free;
    if (!free.size) return false;
    this.counts.rounds++;
    const limit = this.lookPast ? ROUND : Math.min(free.slots, ROUND);
    this.lookPast = false;
    const queued = await queuedTasks(db, free.ids, limit);
    if (!queued.length) return false;
    const mayRunOnMaster = await this.masterNodeRule(queued);
    const mayRunUnsandboxed = await this.sandboxRule(queued);
    let placed = 0;
    for (const t of queued) {
      if (this.closed) return false;
      const s =
        t.node_id === EMPTY_ID
          ? free.leastLoaded(mayRunOnMaster(t), mayRunUnsandboxed(t))
          : this.target(t.node_id, mayRunOnMaster(t), mayRunUnsandboxed(t));
      if (!s) continue;
      if (!(await claimTask(db, t.id, s.nodeId))) {
        this.counts.claimsLost++;
        continue;
      }
      this.counts.claims++;
      placed++;
      s.addTask(t.id);
      await this.host.assign(s, t.id);
      await this.host.statusMayHaveChanged(s.nodeId);
    }
    // Some tasks read could not be placed, slots are left, and tasks may wait behind them: look past them once.
    this.lookPast = placed < queued.length && queued.length === limit && limit < ROUND && free.size > 0;
    return this.lookPast || (placed > 0 && (queued.length === limit || placed < queued.length));
  }

  /**
   * Whether a task may go to the master's own node: while it is closed to normal users' tasks, only tasks of
   * admins or of no user (the system) may.
   */
  private async masterNodeRule(queued: QueuedTask[]): Promise<(t: QueuedTask) => boolean> {
    if (!this.host.sessions.free.hasMaster || !(await masterNodeClosedToUsers(this.host.db))) return () => true;
    const admins = queued.some((t) => t.owner_id) ? await adminIds(this.host.db) : new Set<string>();
    return (t) => !t.owner_id || admins.has(t.owner_id);
  }

  /**
   * Whether a task may go to a node without a sandbox: while those are closed to normal users' tasks, only tasks of
   * admins or of no user (the system) may.
   */
  private async sandboxRule(queued: QueuedTask[]): Promise<(t: QueuedTask) => boolean> {
    const db = this.host.db;
    if (!this.host.sessions.free.hasUnsandboxed || !(await unsandboxedNodesClosedToUsers(db))) return () => true;
    const admins = queued.some((t) => t.owner_id) ? await adminIds(db) : new Set<string>();
    return (t) => !t.owner_id || admins.has(t.owner_id);
  }

  private target(nodeId: string, masterAllowed: boolean, unsandboxedAllowed: boolean): Session | undefined {
    const s = this.host.sessions.get(nodeId);
    const allowed = (!s?.isMaster || masterAllowed) && (s?.sandboxed || unsandboxedAllowed);
    return s && takesWork(s) && allowed ? s : undefined;
  }
}

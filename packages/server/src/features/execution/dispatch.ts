/**
 * Push dispatch: whenever a task is created or a slot frees up, the waiting tasks of the highest priority, oldest
 * first, go to nodes this master holds. The node is chosen in memory (a task for any node goes to the least loaded
 * one), then claimed in the store with one conditional update per task: the claim stays the single source of truth,
 * so masters sharing a store never hand out a task twice; a claim lost to another master costs one statement and
 * moves on. A task whose spider or project is at its concurrency limit waits; the claim of a task under a limit
 * counts again in the store (`concurrency.ts`).
 *
 * A pass reads the queue in rounds, each after the last task the previous one read, until the free slots are
 * taken or the queue is read to its end: tasks no free node may take now never keep the tasks behind them waiting.
 */
import { EMPTY_ID } from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { DB } from '../../store/schema.ts';
import { masterNodeClosedToUsers, unsandboxedNodesClosedToUsers } from './placement.ts';
import { claimTask } from './task-state.store.ts';
import { queuedTasks, type QueueKey, type QueueRead, type QueuedTask } from './queue.store.ts';
import { ConcurrencyGate } from './concurrency.ts';
import { adminIds } from './node-state.store.ts';
import { takesWork } from './free-sessions.ts';
import type { Session, SessionTable } from './sessions.ts';

/** Most tasks read per round; a pass reads again while it may place more. */
const ROUND = 500;
/**
 * Fewest tasks read per round, even for one free slot: a queue head that cannot be placed is then passed in rounds
 * of this size, not one task at a time.
 */
const MIN_ROUND = 50;

/** Where tasks may go this round, and what the reads of the queue leave out for it. */
interface PlacementRules {
  mayRunOnMaster(t: QueuedTask): boolean;
  mayRunUnsandboxed(t: QueuedTask): boolean;
  read: Pick<QueueRead, 'admins' | 'closedNodes' | 'usersWelcome'>;
}

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
          await this.pass();
        } while (this.again && !this.closed);
      } catch (err) {
        this.host.log.error({ err }, 'dispatch failed');
      } finally {
        this.running = false;
      }
    })();
  }

  /** One pass: rounds from the head of the queue, each after the last task the previous one read. */
  private async pass(): Promise<void> {
    const gate = await ConcurrencyGate.load(this.host.db);
    let after: QueueKey | undefined;
    while (!this.closed) {
      const last = await this.round(gate, after);
      if (!last) return;
      after = last;
    }
  }

  /**
   * Places one round of waiting tasks; returns the place of the last task read when another round may place more
   * (it read as many as it asked for, and slots are still free). The free sessions are kept in order by the session
   * table, so a round costs its store reads and its placements, whatever the size of the fleet or the queue.
   */
  private async round(gate: ConcurrencyGate, after: QueueKey | undefined): Promise<QueueKey | undefined> {
    const { db, sessions } = this.host;
    const free = sessions.free;
    if (!free.size) return undefined;
    this.counts.rounds++;
    const limit = Math.min(Math.max(free.slots, MIN_ROUND), ROUND);
    const rules = await this.rules();
    const queued = await queuedTasks(db, {
      nodes: free.ids,
      limit,
      after,
      fullSpiders: gate.fullSpiders,
      fullProjects: gate.fullProjects,
      ...rules.read,
    });
    if (!queued.length) return undefined;
    await gate.learn(queued);
    for (const t of queued) {
      if (this.closed || !free.size) return undefined;
      if (gate.blocked(t) || (t.node_id !== EMPTY_ID && !free.ids.has(t.node_id))) continue;
      const masterOk = rules.mayRunOnMaster(t);
      const bareOk = rules.mayRunUnsandboxed(t);
      const s = t.node_id === EMPTY_ID ? free.leastLoaded(masterOk, bareOk) : this.target(t.node_id, masterOk, bareOk);
      if (!s) continue;
      const claim = gate.limited(t)
        ? await gate.claim(t, s.nodeId)
        : (await claimTask(db, t.id, s.nodeId)) && 'claimed';
      if (claim !== 'claimed') {
        // A limit reached meanwhile (by another master) is not a lost claim: the task waits for its limit.
        if (!claim || claim === 'lost') this.counts.claimsLost++;
        continue;
      }
      this.counts.claims++;
      s.addTask(t.id);
      await this.host.assign(s, t.id);
      await this.host.statusMayHaveChanged(s.nodeId);
    }
    return queued.length === limit && free.size ? queued[queued.length - 1] : undefined;
  }

  /**
   * Where normal users' tasks may go: while the master's own node, or nodes without a sandbox, are closed to them,
   * only tasks of admins or of no user (the system) go there. The reads of the queue leave out normal users' tasks
   * for the free nodes closed to them (and for any node, when every free node is).
   */
  private async rules(): Promise<PlacementRules> {
    const { db, sessions } = this.host;
    const free = sessions.free;
    const masterClosed = free.hasMaster && (await masterNodeClosedToUsers(db));
    const bareClosed = free.hasUnsandboxed && (await unsandboxedNodesClosedToUsers(db));
    if (!masterClosed && !bareClosed) return { mayRunOnMaster: () => true, mayRunUnsandboxed: () => true, read: {} };
    const admins = await adminIds(db);
    const privileged = (t: QueuedTask) => !t.owner_id || admins.has(t.owner_id);
    const closedNodes = new Set<string>();
    for (const id of free.ids) {
      const s = sessions.get(id);
      if (s && ((s.isMaster && masterClosed) || (!s.sandboxed && bareClosed))) closedNodes.add(id);
    }
    return {
      mayRunOnMaster: (t) => !masterClosed || privileged(t),
      mayRunUnsandboxed: (t) => !bareClosed || privileged(t),
      read: { admins: [...admins], closedNodes, usersWelcome: closedNodes.size < free.ids.size },
    };
  }

  private target(nodeId: string, masterAllowed: boolean, unsandboxedAllowed: boolean): Session | undefined {
    const s = this.host.sessions.get(nodeId);
    const allowed = (!s?.isMaster || masterAllowed) && (s?.sandboxed || unsandboxedAllowed);
    return s && takesWork(s) && allowed ? s : undefined;
  }
}
